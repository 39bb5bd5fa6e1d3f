// The kernel's log as a process of the machine reads it (/dev/kmsg): what
// the kernel printed while a trace ran, whatever the console's log level
// lets through (the Soft-RoCE guest's console shows errors only, so a
// WARNING reaches no console there).
#pragma once
#include <string>
#include <string_view>

namespace mwc::kernel {

// Returns the message of one /dev/kmsg record ("PRIO,SEQ,USEC,FLAGS;TEXT"
// and, on lines of their own that start with a blank, its dictionary) as
// console lines: TEXT with its \xNN escapes of line ends undone, a line
// end at the end. A record without ';' gives "".
std::string kmsg_text(std::string_view record);

class KernelLog {
 public:
  // Opens /dev/kmsg past the records in it now. A log that cannot be
  // opened (not root, no such file) reads as empty.
  KernelLog();
  ~KernelLog();
  KernelLog(const KernelLog&) = delete;
  KernelLog& operator=(const KernelLog&) = delete;
  // Returns whether the log could be opened.
  bool open() const { return fd_ >= 0; }
  // Returns the messages logged since the last call (kmsg_text() of each
  // record, in order); records the kernel overwrote before they were read
  // are skipped.
  std::string read_new();

 private:
  int fd_ = -1;
};

}  // namespace mwc::kernel
