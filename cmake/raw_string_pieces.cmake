# aicost_raw_string_pieces(OUT CONTENT DELIM): OUT is CONTENT as C++ raw string literals of 8 KiB
# each, one a line (R"DELIM(...)DELIM"), for the compiler to join; "" when CONTENT is empty. Raw
# string literals have a length limit on some compilers. Used by embed_data.cmake and
# embed_vega.cmake.
function(aicost_raw_string_pieces out content delim)
  string(LENGTH "${content}" len)
  set(pieces "")
  set(pos 0)
  while(pos LESS len)
    string(SUBSTRING "${content}" ${pos} 8192 chunk)
    string(APPEND pieces "R\"${delim}(${chunk})${delim}\"\n")
    math(EXPR pos "${pos} + 8192")
  endwhile()
  if(pieces STREQUAL "")
    set(pieces "\"\"")
  endif()
  set(${out} "${pieces}" PARENT_SCOPE)
endfunction()
