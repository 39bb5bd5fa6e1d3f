// A file another process keeps writing to (a guest's console, whose every
// op prints a line) and a reader that reads it through once: the blocks
// behind the bytes read can go back to the file system while the writer
// goes on, so that the file takes on disk what is still to be read, not
// all that was ever written.
#pragma once
#include <cstdint>
#include <filesystem>

namespace mwc {

// Frees the disk blocks behind file p's bytes from `freed` up to `upto`
// (rounded down to whole 4 KiB blocks), keeping its size and every offset
// (those bytes then read as zeros), and moves `freed` to where it freed
// up to. Returns false where that cannot be done (a file system without
// holes, the file gone): then there is no point in asking again.
bool free_read_blocks(const std::filesystem::path& p, uint64_t& freed, uint64_t upto);

}  // namespace mwc
