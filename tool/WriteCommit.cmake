# Writes OUT with the source tree's commit for `relayout --version`, only when it changed (so that
# a build without a new commit recompiles nothing).
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD OUTPUT_VARIABLE commit
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
if(failed OR commit STREQUAL "")
  set(commit "unknown")
endif()
execute_process(COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no OUTPUT_VARIABLE dirty
                ERROR_QUIET)
if(NOT dirty STREQUAL "")
  set(commit "${commit}+changes")
endif()
set(text "#define RELAYOUT_COMMIT \"${commit}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
