// Reading a descriptor as every reader of traces does: again after a read
// cut short by a signal (EINTR), and, for a whole block, after a read that
// brought less than asked (a pipe gives what its writer has written).
#pragma once
#include <sys/types.h>

#include <cstddef>

namespace mwc {

// Reads up to n bytes from fd into p, again after a read cut short or
// interrupted; returns how many (fewer only at the end), or -1 (errno set).
ssize_t read_full(int fd, void* p, size_t n);
// Reads what is there, up to n bytes (waiting for some, again after an
// interruption); returns how many (0 only at the end), or -1 (errno set).
ssize_t read_some(int fd, void* p, size_t n);

}  // namespace mwc
