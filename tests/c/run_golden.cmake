# One golden test: runs realify-opt on INPUT with the flags of its "# RUN:" line, then tests/c/filecheck.c on
# the output, the error text and the status against INPUT's CHECK lines (see the top of filecheck.c).
# With SELFTEST set the checker itself is under test: its run on INPUT must fail, and what it prints is checked
# against INPUT's DIAG lines (a second filecheck run with --prefix DIAG; DIAG-ERR lines also require status 1).
# Needs OPT, FILECHECK, INPUT and WORK (a folder for the outputs, kept for a look after a failure).
file(STRINGS ${INPUT} run_lines REGEX "^# RUN:")
list(LENGTH run_lines nrun)
if(NOT nrun EQUAL 1)
  message(FATAL_ERROR "${INPUT}: needs exactly one '# RUN:' line (realify-opt's flags), has ${nrun}")
endif()
string(REGEX REPLACE "^# RUN:[ ]*" "" flags "${run_lines}")
separate_arguments(flags)
get_filename_component(name ${INPUT} NAME_WE)
file(MAKE_DIRECTORY ${WORK})
set(base ${WORK}/${name})
execute_process(COMMAND ${OPT} ${flags} ${INPUT}
                OUTPUT_FILE ${base}.out ERROR_FILE ${base}.err RESULT_VARIABLE rc)
set(check ${FILECHECK} --stdout ${base}.out --stderr ${base}.err --status "${rc}" ${INPUT})
if(NOT SELFTEST)
  execute_process(COMMAND ${check} RESULT_VARIABLE fc)
  if(NOT fc EQUAL 0)
    message(FATAL_ERROR "${INPUT}: CHECK lines failed (filecheck status ${fc}); output in ${base}.out")
  endif()
  return()
endif()
execute_process(COMMAND ${check} OUTPUT_FILE ${base}.fc.out ERROR_FILE ${base}.fc.err RESULT_VARIABLE fc)
execute_process(COMMAND ${FILECHECK} --prefix DIAG --stdout ${base}.fc.out --stderr ${base}.fc.err
                        --status "${fc}" ${INPUT} RESULT_VARIABLE dc)
if(NOT dc EQUAL 0)
  message(FATAL_ERROR "${INPUT}: filecheck did not fail as its DIAG lines say (status ${fc}); "
                      "its messages are in ${base}.fc.err")
endif()
