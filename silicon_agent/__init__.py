"""silicon-agent: MCP tool servers for digital design and a thin agent host.

Installed, `silicon_agent.servers`, `.host`, `.hdl`, `.refmodels` and `.suite` are this
package's subpackages. In a checkout they are the top-level folders beside this one: the
checkout's root joins the package's path, so the same names import from the sources."""

from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
if (_ROOT / "pyproject.toml").is_file() and (_ROOT / "servers" / "__init__.py").is_file():
    __path__.append(str(_ROOT))
