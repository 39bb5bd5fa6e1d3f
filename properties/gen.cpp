#include "properties/gen.hpp"

#include <algorithm>

#include "refmodel/text_codec.hpp"
#include "refmodel/vocab.hpp"

namespace mwc {
void showValue(const Op& op, std::ostream& os) { os << op_to_text(op); }
}  // namespace mwc

namespace mwc::props {
namespace {

constexpr const char* kPrologue =
    "buf b0 len=8192\nalloc_pd p0\nalloc_pd p1\n"
    "reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_READ|LOCAL_WRITE|REMOTE_READ|REMOTE_WRITE|"
    "REMOTE_ATOMIC|MW_BIND\n"
    "reg_mr m1 pd=p0 addr=b0+4096 len=4096 access=LOCAL_WRITE|REMOTE_READ|MW_BIND\n"
    "alloc_mw w0 pd=p0 type=1\nalloc_mw w1 pd=p0 type=2\n"
    "create_qp q0 pd=p0\ncreate_qp q1 pd=p0\n"
    "bind_mw q0 w0 mr=m0 addr=b0+64 len=1024 access=REMOTE_READ|REMOTE_WRITE|REMOTE_ATOMIC\n"
    "wr_bind_mw q0 w1 mr=m0 addr=b0+2048 len=1024 access=REMOTE_READ|REMOTE_ATOMIC|ZERO_BASED\n"
    "poll_cq q0\npoll_cq q0\n";

// Values worth trying for a number field, clamped into its range.
rc::Gen<uint64_t> gen_number(const FieldDesc& f) {
  std::vector<uint64_t> picks;
  for (uint64_t v : {f.lo, f.hi, f.def, uint64_t{1}, uint64_t{2}, uint64_t{8}, uint64_t{64},
                     uint64_t{4096}, uint64_t{8192}})
    picks.push_back(std::clamp(v, f.lo, f.hi));
  if (f.hi == f.lo) return rc::gen::just(f.lo);
  return rc::gen::weightedOneOf<uint64_t>(
      {{4, rc::gen::elementOf(picks)}, {1, rc::gen::inRange(f.lo, f.hi)}});
}

// A subset of a flag table's values.
rc::Gen<uint64_t> gen_flags(std::span<const NamedValue> table) {
  std::vector<uint64_t> bits;
  for (const auto& nv : table) bits.push_back(nv.value);
  return rc::gen::map(rc::gen::inRange<uint32_t>(0, 1u << bits.size()), [bits](uint32_t pick) {
    uint64_t v = 0;
    for (size_t i = 0; i < bits.size(); ++i)
      if ((pick >> i) & 1) v |= bits[i];
    return v;
  });
}

rc::Gen<uint64_t> gen_enum(std::span<const NamedValue> table, uint64_t def) {
  std::vector<uint64_t> values;
  for (const auto& nv : table) values.push_back(nv.value);
  return rc::gen::weightedOneOf<uint64_t>({{3, rc::gen::just(def)}, {1, rc::gen::elementOf(values)}});
}

rc::Gen<uint32_t> gen_handle(HandleKind k) {
  return rc::gen::inRange<uint32_t>(0, small_caps()[static_cast<int>(k)]);
}

rc::Gen<uint64_t> gen_offset() {
  return rc::gen::elementOf(std::vector<uint64_t>{0, 8, 16, 64, 1024, 4088, 4096, 0 - uint64_t{8}});
}

rc::Gen<Arg> gen_field(const FieldDesc& f) {
  using G = rc::Gen<Arg>;
  if (is_handle(f.kind)) {
    G some = rc::gen::map(gen_handle(handle_kind(f.kind)), [](uint32_t h) { return Arg{0, h, 0}; });
    if (f.mode != FieldMode::Opt) return some;
    return rc::gen::weightedOneOf<Arg>({{3, some}, {1, rc::gen::just(Arg{0, kNoHandle, 0})}});
  }
  const auto value = [](rc::Gen<uint64_t> g) {
    return rc::gen::map(std::move(g), [](uint64_t v) { return Arg{v, kNoHandle, 0}; });
  };
  switch (f.kind) {
    case FieldKind::U64: return value(gen_number(f));
    case FieldKind::Access: return value(gen_flags(access_flag_names()));
    case FieldKind::SendFlags: return value(gen_flags(send_flag_names()));
    case FieldKind::ReregFlags: return value(gen_flags(rereg_flag_names()));
    case FieldKind::QpType: return value(gen_enum(qp_type_names(), f.def));
    case FieldKind::QpState: return value(gen_enum(qp_state_names(), f.def));
    case FieldKind::Addr: {
      G raw = rc::gen::map(rc::gen::arbitrary<uint64_t>(),
                           [](uint64_t v) { return Arg{v, kNoHandle, uint8_t(AddrBase::Raw)}; });
      G rel = rc::gen::apply(
          [](uint32_t h, uint64_t off, uint8_t base) {
            // Only handles the caps allow, so the text form has the same caps.
            const HandleKind k = base == uint8_t(AddrBase::Buf)  ? HandleKind::Buf
                                 : base == uint8_t(AddrBase::Mr) ? HandleKind::Mr
                                                                 : HandleKind::Mw;
            return Arg{off, h % small_caps()[static_cast<int>(k)], base};
          },
          rc::gen::inRange<uint32_t>(0, 2), gen_offset(),
          rc::gen::element(uint8_t(AddrBase::Buf), uint8_t(AddrBase::Mr), uint8_t(AddrBase::Mw)));
      return rc::gen::weightedOneOf<Arg>({{6, rel}, {1, raw}});
    }
    case FieldKind::Rkey: {
      G raw = rc::gen::map(rc::gen::arbitrary<uint32_t>(),
                           [](uint32_t v) { return Arg{0, v, uint8_t(RkeyBase::Raw)}; });
      G ref = rc::gen::apply(
          [](uint8_t base, uint32_t h, uint64_t d) { return Arg{d, h, base}; },
          rc::gen::element(uint8_t(RkeyBase::MwCur), uint8_t(RkeyBase::MwPrev), uint8_t(RkeyBase::Mr)),
          rc::gen::inRange<uint32_t>(0, 2), rc::gen::element<uint64_t>(0, 0, 0, 0, 0, 1, 255));
      return rc::gen::weightedOneOf<Arg>({{8, ref}, {1, raw}});
    }
    case FieldKind::Key:
      return rc::gen::apply(
          [](uint8_t base, uint64_t v) { return Arg{v, kNoHandle, base}; },
          rc::gen::element(uint8_t(KeyBase::Rel), uint8_t(KeyBase::Abs)),
          rc::gen::weightedOneOf<uint64_t>(
              {{3, rc::gen::element<uint64_t>(0, 1)}, {1, rc::gen::inRange<uint64_t>(0, 256)}}));
    default: return rc::gen::just(Arg{});
  }
}

// An op code, remote ops (which meet the windows) weighted up.
rc::Gen<int> gen_code() {
  std::vector<int> codes;
  for (int c = 0; c < kOpCount; ++c)
    codes.insert(codes.end(), op_desc(static_cast<OpCode>(c)).kind == OpKind::Remote ? 4 : 1, c);
  return rc::gen::elementOf(codes);
}

}  // namespace

Caps small_caps() { return Caps{1, 2, 2, 2, 2}; }  // what the prologue names

const std::vector<Op>& prologue() {
  static const std::vector<Op> ops = [] {
    auto r = parse_text(kPrologue);
    return std::get<Trace>(r).ops;
  }();
  return ops;
}

rc::Gen<Op> gen_op() {
  return rc::gen::mapcat(gen_code(), [](int code) {
    const OpDesc& d = op_desc(static_cast<OpCode>(code));
    std::vector<rc::Gen<Arg>> fields;
    for (const FieldDesc& f : d.fields) {
      // Optional fields keep their default half of the time.
      if (f.mode == FieldMode::Opt) {
        const Arg def = default_op(static_cast<OpCode>(code)).a[fields.size()];
        fields.push_back(rc::gen::weightedOneOf<Arg>({{1, rc::gen::just(def)}, {1, gen_field(f)}}));
      } else {
        fields.push_back(gen_field(f));
      }
    }
    return rc::gen::map(rc::gen::exec([fields] {
                          std::vector<Arg> v;
                          for (const auto& g : fields) v.push_back(*g);
                          return v;
                        }),
                        [code](const std::vector<Arg>& v) {
                          Op op{static_cast<OpCode>(code), {}};
                          for (size_t i = 0; i < v.size(); ++i) op.a[i] = v[i];
                          return op;
                        });
  });
}

rc::Gen<std::vector<Op>> gen_ops() { return rc::gen::container<std::vector<Op>>(gen_op()); }

Profile any_profile() { return profile(static_cast<ProfileId>(*rc::gen::inRange(0, kProfileCount))); }

Trace with_prologue(const std::vector<Op>& ops) {
  Trace t;
  t.caps = small_caps();
  t.ops = prologue();
  t.ops.insert(t.ops.end(), ops.begin(), ops.end());
  return t;
}

}  // namespace mwc::props
