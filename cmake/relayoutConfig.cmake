# relayout's CMake package (installed as PREFIX/lib/cmake/relayout/relayoutConfig.cmake):
#
#   find_package(relayout REQUIRED)                 # -Drelayout_DIR=PREFIX/lib/cmake/relayout
#   relayout_enable(my_app MODE generate DIR ${CMAKE_BINARY_DIR}/relayout)
#   relayout_enable(my_app MODE use PLAN ${CMAKE_BINARY_DIR}/relayout/plan.json)
#   relayout_enable(my_app MODE off)                # or nothing: plain nvcc
#
# generate: the target's CUDA sources compile instrumented (through `relayout nvcc-launcher`, as
# CMAKE_CUDA_COMPILER_LAUNCHER would), it links relayout's runtime and CUPTI, and running it writes
# its profile into DIR; `relayout analyze DIR` then writes DIR/plan.json. use: the sources the plan
# covers compile rewritten to its layouts, and a changed plan rebuilds them. A launcher the target
# already had (ccache) stays, after relayout's.
# Everything is found relative to this file: the installed tree can be moved.
get_filename_component(_relayout_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(RELAYOUT_EXECUTABLE "${_relayout_prefix}/bin/relayout" CACHE FILEPATH "The relayout program")

include(CMakeFindDependencyMacro)
find_dependency(CUDAToolkit)

# The relayout program, for add_custom_command and the like: $<TARGET_FILE:relayout::relayout>.
if(NOT TARGET relayout::relayout)
  add_executable(relayout::relayout IMPORTED)
  set_target_properties(relayout::relayout PROPERTIES IMPORTED_LOCATION "${RELAYOUT_EXECUTABLE}")
endif()

if(NOT TARGET relayout::runtime)
  add_library(relayout::runtime STATIC IMPORTED)
  set_target_properties(relayout::runtime PROPERTIES
    IMPORTED_LOCATION "${_relayout_prefix}/lib/librelayout_rt.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_relayout_prefix}/include"
    INTERFACE_LINK_LIBRARIES "CUDA::cupti;CUDA::cuda_driver")
endif()

# A launcher the target already has (CMAKE_CUDA_COMPILER_LAUNCHER=ccache) is kept, after relayout's:
# relayout runs the compiles through it. Sets `out` to what follows relayout's own arguments.
function(_relayout_chained_launcher target out)
  get_target_property(previous ${target} CUDA_COMPILER_LAUNCHER)
  if(NOT previous OR previous MATCHES "nvcc-launcher")
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  list(GET previous 0 launcher)
  get_filename_component(name "${launcher}" NAME)
  if(NOT name MATCHES "^(ccache|sccache|buildcache|distcc)$")
    message(FATAL_ERROR "relayout_enable(${target}): the target's CUDA_COMPILER_LAUNCHER '${previous}' is not one "
                        "relayout can run its compiles through (ccache, sccache, buildcache, distcc)")
  endif()
  message(STATUS "relayout_enable(${target}): CUDA compiles go through relayout, then ${previous}")
  set(${out} "${previous}" PARENT_SCOPE)
endfunction()

function(relayout_enable target)
  cmake_parse_arguments(PARSE_ARGV 1 RELAYOUT "" "MODE;DIR;PLAN" "")
  if(RELAYOUT_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "relayout_enable(${target}): unknown arguments ${RELAYOUT_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "relayout_enable: ${target} is not a target")
  endif()
  if(RELAYOUT_MODE STREQUAL "generate")
    if(NOT RELAYOUT_DIR)
      message(FATAL_ERROR "relayout_enable(${target} MODE generate) needs DIR, the folder for site maps and profiles")
    endif()
    get_filename_component(dir "${RELAYOUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_BINARY_DIR}")
    _relayout_chained_launcher(${target} chained)
    set_property(TARGET ${target} PROPERTY CUDA_COMPILER_LAUNCHER
                 ${RELAYOUT_EXECUTABLE} nvcc-launcher --relayout-generate=${dir} ${chained})
    target_link_libraries(${target} PRIVATE relayout::runtime)
  elseif(RELAYOUT_MODE STREQUAL "use")
    if(NOT RELAYOUT_PLAN)
      message(FATAL_ERROR "relayout_enable(${target} MODE use) needs PLAN, the plan `relayout analyze` wrote")
    endif()
    get_filename_component(plan "${RELAYOUT_PLAN}" ABSOLUTE BASE_DIR "${CMAKE_BINARY_DIR}")
    if(NOT EXISTS "${plan}")
      message(FATAL_ERROR "relayout_enable(${target} MODE use): the plan ${plan} does not exist; build with "
                          "MODE generate, run the program, then `relayout analyze DIR`")
    endif()
    _relayout_chained_launcher(${target} chained)
    set_property(TARGET ${target} PROPERTY CUDA_COMPILER_LAUNCHER
                 ${RELAYOUT_EXECUTABLE} nvcc-launcher --relayout-use=${plan} ${chained})
    # A new plan rebuilds the target's CUDA objects.
    get_target_property(sources ${target} SOURCES)
    get_target_property(source_dir ${target} SOURCE_DIR)
    foreach(source IN LISTS sources)
      if(source MATCHES "\\.cu$")
        set_property(SOURCE "${source}" DIRECTORY "${source_dir}" APPEND PROPERTY OBJECT_DEPENDS "${plan}")
      endif()
    endforeach()
  elseif(RELAYOUT_MODE STREQUAL "off" OR RELAYOUT_MODE STREQUAL "")
    return()
  else()
    message(FATAL_ERROR "relayout_enable(${target}): MODE must be generate, use or off, not '${RELAYOUT_MODE}'")
  endif()
endfunction()
