#include "refmodel/vocab.hpp"

#include <array>

namespace mwc {
namespace {

constexpr std::string_view kResults[] = {
#define X(n) #n,
    MWC_RESULTS(X)
#undef X
};
constexpr std::string_view kWcStatuses[] = {
#define X(n) #n,
    MWC_WC_STATUSES(X)
#undef X
};
constexpr std::string_view kWcOpcodes[] = {
#define X(n) #n,
    MWC_WC_OPCODES(X)
#undef X
};
constexpr NamedValue kAccess[] = {
#define X(n, v) {#n, v},
    MWC_ACCESS_FLAGS(X)
#undef X
};
constexpr NamedValue kSendFlags[] = {
#define X(n, v) {#n, v},
    MWC_SEND_FLAGS(X)
#undef X
};
constexpr NamedValue kReregFlags[] = {
#define X(n, v) {#n, v},
    MWC_REREG_FLAGS(X)
#undef X
};
constexpr NamedValue kQpTypes[] = {
#define X(n, v) {#n, v},
    MWC_QP_TYPES(X)
#undef X
};
constexpr NamedValue kQpStates[] = {
#define X(n) {#n, static_cast<uint32_t>(QpState::k##n)},
    MWC_QP_STATES(X)
#undef X
};

template <class E, size_t N>
std::optional<E> lookup(const std::string_view (&table)[N], std::string_view n) {
  for (size_t i = 0; i < N; ++i)
    if (table[i] == n) return static_cast<E>(i);
  return std::nullopt;
}

}  // namespace

std::span<const std::string_view> result_names() { return kResults; }
std::span<const std::string_view> wc_status_names() { return kWcStatuses; }
std::span<const std::string_view> wc_opcode_names() { return kWcOpcodes; }
std::span<const NamedValue> access_flag_names() { return kAccess; }
std::span<const NamedValue> send_flag_names() { return kSendFlags; }
std::span<const NamedValue> rereg_flag_names() { return kReregFlags; }
std::span<const NamedValue> qp_type_names() { return kQpTypes; }
std::span<const NamedValue> qp_state_names() { return kQpStates; }

std::string_view name(Result r) { return kResults[static_cast<size_t>(r)]; }
std::string_view name(WcStatus s) { return kWcStatuses[static_cast<size_t>(s)]; }
std::string_view name(WcOpcode o) { return kWcOpcodes[static_cast<size_t>(o)]; }
std::string_view name(QpState s) { return kQpStates[static_cast<size_t>(s)].name; }

std::optional<Result> result_from_name(std::string_view n) { return lookup<Result>(kResults, n); }
std::optional<WcStatus> wc_status_from_name(std::string_view n) {
  return lookup<WcStatus>(kWcStatuses, n);
}
std::optional<WcOpcode> wc_opcode_from_name(std::string_view n) {
  return lookup<WcOpcode>(kWcOpcodes, n);
}

uint32_t all_bits(std::span<const NamedValue> table) {
  uint32_t bits = 0;
  for (const auto& nv : table) bits |= nv.value;
  return bits;
}

}  // namespace mwc
