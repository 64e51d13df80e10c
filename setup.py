"""Packaging: the checkout's top-level folders install under the one package
`silicon_agent` (`silicon_agent.servers`, `silicon_agent.host`, ...), so the distribution
claims no generic top-level name. Everything else is in pyproject.toml."""

from setuptools import find_packages, setup

TOPS = ("servers", "host", "hdl", "refmodels", "suite", "campaigns")

packages = ["silicon_agent"] + [
    f"silicon_agent.{name}" for name in find_packages(include=[f"{t}*" for t in TOPS])
]
setup(
    packages=packages,
    package_dir={"silicon_agent": "silicon_agent", **{f"silicon_agent.{t}": t for t in TOPS}},
)
