#include "adapters/softroce/markers.hpp"

#include <array>

namespace mwc::softroce {

size_t marker_inside(std::string_view line) {
  // Only the markers themselves: a program's own text that merely holds
  // the prefix stays as it is.
  static constexpr std::array kMarkers = {kReadyMarker, kEndMarker, kSetupFailedMarker, kTraceMarker,
                                          kOpMarker,    kTracesDone, kInputBegin, kInputEnd,
                                          kAliveMarker, kCandidateMarker};
  for (size_t at = line.find(kMarkerPrefix, 1); at != std::string_view::npos;
       at = line.find(kMarkerPrefix, at + 1)) {
    const std::string_view rest = line.substr(at);
    for (const std::string_view m : kMarkers)
      if (rest.starts_with(m)) return at;
  }
  return std::string_view::npos;
}

}  // namespace mwc::softroce
