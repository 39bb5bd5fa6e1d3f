# Turns a source file into a C++ raw string literal (an #include-able
# .inc), so the exports carry their runtimes in the mwcheck binary.
#   cmake -DIN=runtime.c -DOUT=runtime_c.inc -P embed.cmake
file(READ "${IN}" content)
string(FIND "${content}" ")mwc_embed\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} holds the raw string's terminator")
endif()
file(WRITE "${OUT}.tmp" "R\"mwc_embed(${content})mwc_embed\"\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
