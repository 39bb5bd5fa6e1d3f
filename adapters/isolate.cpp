#include "adapters/isolate.hpp"

#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <ucontext.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <algorithm>
#include <cstring>
#include <type_traits>

namespace mwc {
namespace {

static_assert(std::is_trivially_copyable_v<Outcome>);
struct Record {
  uint8_t done;  // 1: every op ran; the child now tears down
  Outcome o;
};

bool write_all(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n) {
    const ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// What a child says on stderr: its first words (a provider's message, say)
// and its last (a sanitizer's summary), with what lies between dropped.
struct Log {
  static constexpr size_t kHead = 1000, kTail = 1500;
  std::string head, tail;
  bool cut = false;
  void add(const char* p, size_t n) {
    const size_t h = std::min(n, kHead - head.size());
    head.append(p, h);
    tail.append(p + h, n - h);
    if (tail.size() > kTail) tail.erase(0, tail.size() - kTail), cut = true;
  }
  std::string text() const { return head + (cut ? "\n...\n" : "") + tail; }
};

// Writes a number in hex without allocating (the child is dying).
void put_hex(char*& p, uint64_t v) {
  char tmp[17];
  int n = 0;
  do tmp[n++] = "0123456789abcdef"[v & 15], v >>= 4; while (v);
  *p++ = '0', *p++ = 'x';
  while (n) *p++ = tmp[--n];
}

void put(char*& p, const char* end, const char* s) {
  while (*s && p < end) *p++ = *s++;
}

// In the child: a fatal signal names the code it hit, as `fault at
// LIBRARY+0xOFFSET (SYMBOL)`, so that crashes group by where they happen,
// not by the trace that reached them; then the signal takes its course.
void locate_fault(int sig, siginfo_t*, void* ctx) {
#if defined(__x86_64__)
  const auto pc = static_cast<uint64_t>(static_cast<ucontext_t*>(ctx)->uc_mcontext.gregs[REG_RIP]);
#else
  const uint64_t pc = 0;
  (void)ctx;
#endif
  char buf[512];
  char* p = buf;
  const char* end = buf + sizeof buf - 40;
  put(p, end, "fault at ");
  Dl_info info{};
  if (pc && dladdr(reinterpret_cast<void*>(pc), &info) && info.dli_fname) {
    const char* base = std::strrchr(info.dli_fname, '/');
    put(p, end, base ? base + 1 : info.dli_fname);
    *p++ = '+';
    put_hex(p, pc - reinterpret_cast<uint64_t>(info.dli_fbase));
    if (info.dli_sname) put(p, end, " ("), put(p, end, info.dli_sname), put(p, end, ")");
  } else {
    put_hex(p, pc);
  }
  *p++ = '\n';
  (void)!write(STDERR_FILENO, buf, static_cast<size_t>(p - buf));
  signal(sig, SIG_DFL);
  raise(sig);
}

void install_fault_locator() {
  struct sigaction sa{};
  sa.sa_sigaction = locate_fault;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
  for (const int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) sigaction(sig, &sa, nullptr);
}

}  // namespace

IsolatedResult run_isolated(size_t ops, int op_deadline_ms, const ChildBody& body,
                            std::vector<Outcome>& out) {
  out.assign(ops, Outcome{});
  for (auto& o : out) o.ret = Result::kNOTRUN;
  IsolatedResult r;
  int data[2], logs[2];
  if (pipe(data) || pipe(logs)) {
    r.setup_failed = true;
    r.note = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    r.setup_failed = true;
    r.note = std::string("fork: ") + std::strerror(errno);
    return r;
  }
  r.pid = pid;
  if (pid == 0) {
    close(data[0]);
    close(logs[0]);
    dup2(logs[1], STDERR_FILENO);
    install_fault_locator();
    std::string err;
    const bool ok = body(
        [&](const Outcome& o) {
          Record rec{0, o};
          if (!write_all(data[1], &rec, sizeof rec)) _exit(4);
        },
        err);
    if (!ok) {
      write_all(STDERR_FILENO, err.data(), err.size());
      _exit(3);
    }
    Record done{1, Outcome{}};
    write_all(data[1], &done, sizeof done);
    _exit(0);
  }
  close(data[1]);
  close(logs[1]);

  size_t next = 0;
  bool done = false, killed = false, eof = false;
  Log log;
  Record rec;
  size_t have = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(op_deadline_ms);
  while (!done && !eof) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      kill(pid, SIGKILL);
      killed = true;
      break;
    }
    pollfd fds[2] = {{data[0], POLLIN, 0}, {logs[0], POLLIN, 0}};
    if (poll(fds, 2, static_cast<int>(left)) < 0 && errno != EINTR) break;
    if (fds[1].revents & (POLLIN | POLLHUP)) {
      char buf[512];
      const ssize_t n = read(logs[0], buf, sizeof buf);
      if (n > 0) log.add(buf, static_cast<size_t>(n));
    }
    if (!(fds[0].revents & (POLLIN | POLLHUP))) continue;
    const ssize_t n = read(data[0], reinterpret_cast<char*>(&rec) + have, sizeof rec - have);
    if (n <= 0) {
      eof = n == 0 || errno != EINTR;
      continue;
    }
    have += static_cast<size_t>(n);
    if (have < sizeof rec) continue;
    have = 0;
    if (rec.done) {
      done = true;
    } else if (next < ops) {
      out[next++] = rec.o;
      deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(op_deadline_ms);
    }
  }
  // Whatever the child still says on stderr, briefly.
  for (pollfd f{logs[0], POLLIN, 0}; poll(&f, 1, 50) > 0;) {
    char buf[512];
    const ssize_t n = read(logs[0], buf, sizeof buf);
    if (n <= 0) break;
    log.add(buf, static_cast<size_t>(n));
  }
  close(data[0]);
  close(logs[0]);

  int status = 0;
  if (done) {
    // Teardown may sit in the kernel for a while (rxe waits ~50 s for a
    // QP with a bound type 2 window): don't wait for it.
    if (waitpid(pid, &status, WNOHANG) == 0) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, WNOHANG);
    }
    return r;
  }
  // A child that died may still sit in the kernel while its device files
  // close (rxe can wait ~50 s in a QP teardown): wait a little, not for that.
  bool reaped = false;
  for (int i = 0; i < 40 && !reaped; ++i) {
    reaped = waitpid(pid, &status, WNOHANG) == pid;
    if (!reaped && !killed) usleep(50 * 1000);
  }
  if (!killed && !reaped) {
    kill(pid, SIGKILL);
    if (next < ops) out[next].ret = Result::kCRASH;
    r.note = "op " + std::to_string(next + 1) +
             ": the child stopped answering and is stuck leaving the kernel";
    if (const std::string l = log.text(); !l.empty()) r.note += "; its stderr: " + l;
    return r;
  }
  if (!killed && WIFEXITED(status) && WEXITSTATUS(status) == 3) {
    r.setup_failed = true;
    r.note = log.text();
    return r;
  }
  const Result end = killed ? Result::kTIMEOUT : Result::kCRASH;
  if (next < ops) out[next].ret = end;
  if (killed)
    r.note = "op " + std::to_string(next + 1) + std::string(kDeadlinePassed) +
             std::to_string(op_deadline_ms) + " ms: the child was killed";
  else if (WIFSIGNALED(status))
    r.note = "op " + std::to_string(next + 1) + ": the child died of " +
             std::string(sigabbrev_np(WTERMSIG(status)) ? "SIG" : "") +
             (sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "a signal");
  else
    r.note = "op " + std::to_string(next + 1) + ": the child exited with status " +
             std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  if (const std::string l = log.text(); !l.empty()) r.note += "; its stderr: " + l;
  return r;
}

}  // namespace mwc
