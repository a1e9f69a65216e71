# Finds Python (interpreter and the headers of an extension module) and nanobind, which the
# Python module (python/) is built with. Python_EXECUTABLE picks the interpreter: the presets
# name build/pyenv/bin/python, the private environment scripts/python-deps.sh makes; pip
# (scikit-build-core) passes its own. Sets `out` to ON when both are there. A macro, not a
# function: nanobind's package sets variables its nanobind_add_module reads later.
macro(polyhe_find_nanobind out)
  set(${out} OFF)
  if(DEFINED Python_EXECUTABLE AND NOT EXISTS "${Python_EXECUTABLE}")
    message(STATUS "polyhe: no Python module: ${Python_EXECUTABLE} does not exist "
      "(scripts/python-deps.sh makes it)")
  else()
    find_package(Python 3.9 COMPONENTS Interpreter Development.Module)
    if(Python_FOUND)
      execute_process(COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
        OUTPUT_VARIABLE _polyhe_nanobind_dir OUTPUT_STRIP_TRAILING_WHITESPACE
        RESULT_VARIABLE _polyhe_nanobind_status ERROR_QUIET)
      if(_polyhe_nanobind_status EQUAL 0)
        set(nanobind_DIR "${_polyhe_nanobind_dir}" CACHE PATH "nanobind's CMake package" FORCE)
        find_package(nanobind CONFIG REQUIRED)
        set(${out} ON)
      else()
        message(STATUS "polyhe: no Python module: ${Python_EXECUTABLE} has no nanobind")
      endif()
    endif()
  endif()
endmacro()
