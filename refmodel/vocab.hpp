// Enums and name tables generated from vocab.def. Enumerators carry a `k`
// prefix so that errno macros (EPERM, ...) never collide with them.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "refmodel/vocab.def"

namespace mwc {

enum class Result : uint8_t {
#define X(n) k##n,
  MWC_RESULTS(X)
#undef X
};
enum class WcStatus : uint8_t {
#define X(n) k##n,
  MWC_WC_STATUSES(X)
#undef X
};
enum class WcOpcode : uint8_t {
#define X(n) k##n,
  MWC_WC_OPCODES(X)
#undef X
};
enum class QpState : uint8_t {
#define X(n) k##n,
  MWC_QP_STATES(X)
#undef X
};
// How many of each there are.
#define X(n) +1
inline constexpr int kResultCount = 0 MWC_RESULTS(X);
inline constexpr int kWcStatusCount = 0 MWC_WC_STATUSES(X);
inline constexpr int kWcOpcodeCount = 0 MWC_WC_OPCODES(X);
inline constexpr int kQpStateCount = 0 MWC_QP_STATES(X);
#undef X

namespace acc {
enum : uint32_t {
#define X(n, v) n = v,
  MWC_ACCESS_FLAGS(X)
#undef X
};
}  // namespace acc
namespace sendf {
enum : uint32_t {
#define X(n, v) n = v,
  MWC_SEND_FLAGS(X)
#undef X
};
}  // namespace sendf
namespace rereg {
enum : uint32_t {
#define X(n, v) n = v,
  MWC_REREG_FLAGS(X)
#undef X
};
}  // namespace rereg
namespace qpt {
enum : uint32_t {
#define X(n, v) n = v,
  MWC_QP_TYPES(X)
#undef X
};
}  // namespace qpt

// A named value of a flag set or an enum, for parsing and printing.
struct NamedValue {
  std::string_view name;
  uint32_t value;
};

// Name tables. Each returns the whole table in declaration order.
std::span<const std::string_view> result_names();
std::span<const std::string_view> wc_status_names();
std::span<const std::string_view> wc_opcode_names();
std::span<const NamedValue> access_flag_names();
std::span<const NamedValue> send_flag_names();
std::span<const NamedValue> rereg_flag_names();
std::span<const NamedValue> qp_type_names();
std::span<const NamedValue> qp_state_names();

// Each returns the user-facing name of a value.
std::string_view name(Result r);
std::string_view name(WcStatus s);
std::string_view name(WcOpcode o);
std::string_view name(QpState s);

// Each returns the value with that name, or nothing.
std::optional<Result> result_from_name(std::string_view n);
std::optional<WcStatus> wc_status_from_name(std::string_view n);
std::optional<WcOpcode> wc_opcode_from_name(std::string_view n);

// Returns the bitwise OR of every bit a flag table names.
uint32_t all_bits(std::span<const NamedValue> table);

}  // namespace mwc
