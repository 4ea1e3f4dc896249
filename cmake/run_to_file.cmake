# run_to_file.cmake: cmake -DOUT=FILE -DCMD="prog;arg;..." -P run_to_file.cmake
# Runs CMD with CUDALAB_LANG=en and writes its stdout to FILE (portable "CMD > FILE").
set(ENV{CUDALAB_LANG} en)
execute_process(COMMAND ${CMD} OUTPUT_FILE ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${CMD} failed (${rc})")
endif()
