// The lines the Soft-RoCE guest prints on its console for the host to read
// (the guest's init script, mwcheck in the guest, an exported program's
// runtime): each begins with "MWCHECK-" and is written in one write.
#pragma once
#include <cstddef>
#include <string_view>

namespace mwc::softroce {

// Every marker begins so.
inline constexpr std::string_view kMarkerPrefix = "MWCHECK-";
// The guest's init script: rxe0 is up (the kernel's release follows), the
// program ended (its exit status follows), or the setup failed.
inline constexpr std::string_view kReadyMarker = "MWCHECK-READY";
inline constexpr std::string_view kEndMarker = "MWCHECK-END rc=";
inline constexpr std::string_view kSetupFailedMarker = "MWCHECK-SETUP-FAILED";
// The marker the guest command prints on stderr before trace `i` of its
// list, so the host knows which one a dying guest was running.
inline constexpr std::string_view kTraceMarker = "MWCHECK-TRACE ";
// The marker a device session in the guest prints before each op.
inline constexpr std::string_view kOpMarker = "MWCHECK-OP ";
// ... and after the last trace of the list has run.
inline constexpr std::string_view kTracesDone = "MWCHECK-TRACES-DONE";
// A trace with no file behind it (a fuzzer's input), printed on the
// console between these before it runs.
inline constexpr std::string_view kInputBegin = "MWCHECK-INPUT-BEGIN";
inline constexpr std::string_view kInputEnd = "MWCHECK-INPUT-END";
// A guest command that waits (a recorded program running) prints this on
// the console now and then, so the host does not take it for a hung guest.
inline constexpr std::string_view kAliveMarker = "MWCHECK-ALIVE";
// Shrinking in the guest: which candidate runs now, so that a candidate
// that kills the guest is known by its hash.
inline constexpr std::string_view kCandidateMarker = "MWCHECK-CANDIDATE ";

// Returns where a marker begins inside console line `line`, after its first
// byte; npos when none does. A program that shares the console (`record`:
// its standard error) and ends its output without a newline has its last
// bytes joined to the marker written next, which then no longer begins the
// line: the host takes the line apart there, so that neither is lost.
size_t marker_inside(std::string_view line);

}  // namespace mwc::softroce
