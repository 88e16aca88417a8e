# The two set-up commands of the README: `make demo` and `make test`.
# Both create (or reuse) a local virtual environment in .venv and install probperf
# with everything its tests and docs need. pyproject.toml pins torch's version; the
# project machines' pip offers its CPU build from local disk, so the install stays fast
# (elsewhere, see the README: install the CPU build into .venv first).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test docs install clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev,experiments,docs]"
	# Extra-P, the competitor the experiments run: its metadata pins numpy~=1.18 and a
	# GUI toolkit, which would replace numpy under torch, so it goes in without them
	# (its modelling code needs only these two extra packages).
	$(BIN)/python -m pip install --quiet --no-deps extrap "marshmallow~=3.7" "pycubexr>=1.2.3,!=2.0.0,<3"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/probperf demo

# Two processes (pytest-xdist, one per core of the 2-core CI machine; a test file stays
# in one process, so its shared fitted fixtures are built once), then alone the tests
# that compare measured run times of real programs: a second busy process would land
# inside their timed runs.
test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile -m "not slow and not timing"
	$(BIN)/python -m pytest -q -n 2 --dist loadfile -m slow
	$(BIN)/python -m pytest -q -m timing

docs: $(STAMP)
	$(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) build *.egg-info site
