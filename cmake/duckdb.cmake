# DuckDB's C library reads Parquet billing exports (docs/LEDGER.md, "Parquet"), for the main build
# and fuzz/. Debian packages no Parquet reader: scripts/install-duckdb.sh takes the pinned release
# from the npm registry, checks its checksums and leaves include/duckdb.h and lib/libduckdb.so in
# .deps/ (ignored by git). It is run here when they are missing (a checkout configured without
# scripts/install-deps.sh). Makes the imported target duckdb::duckdb; the binaries find the
# library through their build-tree rpath. Needs AICOST_ROOT: the checkout's root.
file(STRINGS ${AICOST_ROOT}/scripts/install-duckdb.sh AICOST_DUCKDB_VERSION REGEX "^version=")
string(REPLACE "version=" "" AICOST_DUCKDB_VERSION "${AICOST_DUCKDB_VERSION}")
set(AICOST_DUCKDB_DIR ${AICOST_ROOT}/.deps/duckdb-${AICOST_DUCKDB_VERSION})
if(NOT EXISTS ${AICOST_DUCKDB_DIR}/include/duckdb.h OR NOT EXISTS ${AICOST_DUCKDB_DIR}/lib/libduckdb.so)
  execute_process(COMMAND ${AICOST_ROOT}/scripts/install-duckdb.sh RESULT_VARIABLE duckdb_rc)
  if(NOT duckdb_rc EQUAL 0)
    message(FATAL_ERROR "DuckDB ${AICOST_DUCKDB_VERSION} is not in ${AICOST_DUCKDB_DIR} and "
                        "scripts/install-duckdb.sh could not install it (above); run it again once the npm "
                        "registry can be reached")
  endif()
endif()
add_library(duckdb::duckdb SHARED IMPORTED)
set_target_properties(duckdb::duckdb PROPERTIES
  IMPORTED_LOCATION ${AICOST_DUCKDB_DIR}/lib/libduckdb.so
  IMPORTED_SONAME libduckdb.so
  INTERFACE_INCLUDE_DIRECTORIES ${AICOST_DUCKDB_DIR}/include)
