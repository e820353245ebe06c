# Included by layers/Makefile and layers/dependencies/Makefile, so both find the same one.
# A 3.12 as Lambda's runtime, for the bytecode: python3.12 on the PATH, or python3 if it is one
# (python3 is 3.11 on Amazon Linux 2023 and CloudShell, 3.13 on Debian 13); PYTHON=... otherwise.
ifndef PYTHON
PYTHON := $(shell for p in python3.12 python3; do \
	$$p -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null \
	&& command -v $$p && break; done)
endif
ifeq ($(PYTHON),)
$(error no Python 3.12 (python3.12 or python3 on the PATH): install one, or pass PYTHON=...)
endif
