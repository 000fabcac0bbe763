#!/bin/sh
# A stand-in for ccache in the tests: logs the command it is given, then runs it.
echo "$*" >> "${CCACHE_STANDIN_LOG:-/dev/null}"
exec "$@"
