// Tests only: a Book driven as the verbs session drives it, with the model
// standing in for the device (the model's rkeys are the device's, its
// outcomes the device's), so that tests can compare what the adapter means
// by a trace with what the model means.
#pragma once
#include "adapters/verbs/book.hpp"
#include "refmodel/model.hpp"

namespace mwc::verbs {

// Steps the model with op and makes the Book calls the session makes for
// it. Returns the model's outcome; `book_key` gets the key outcome the
// Book gives a successful bind (kNoKey otherwise).
inline Outcome mirror_step(Model& m, Book& b, const Op& op, int16_t& book_key) {
  book_key = kNoKey;
  // The model changes no Book: what the session reads of the Book before
  // its device call, the mirror reads after the model's step.
  const Outcome o = m.step(op);
  if (o.ret == Result::kSKIP) return o;
  const auto mr_rkey = [&](uint32_t h) { return m.rkey_of(Arg{0, h, uint8_t(RkeyBase::Mr)}); };
  const auto mw_rkey = [&](uint32_t h) { return m.rkey_of(Arg{0, h, uint8_t(RkeyBase::MwCur)}); };
  const bool ok = o.ret == Result::kOK;
  const bool bound = ok && (o.rule == Rule::bind_ok || o.rule == Rule::bind_zero_length);
  switch (op.code) {
    case OpCode::reg_mr: {
      const args::reg_mr a{op};
      if (ok) b.reg(a.h, mr_rkey(a.h), a.access, b.resolve(a.addr), a.len);
      break;
    }
    case OpCode::rdma_reg_msgs:
    case OpCode::rdma_reg_read:
    case OpCode::rdma_reg_write: {
      const args::rdma_reg_msgs a{op};
      const int i = static_cast<int>(op.code) - static_cast<int>(OpCode::rdma_reg_msgs);
      if (ok) b.reg(a.h, mr_rkey(a.h), kRdmaRegAccess[i], b.resolve(a.addr), a.len);
      break;
    }
    case OpCode::dereg_mr:
    case OpCode::rdma_dereg_mr:
      if (ok) b.dereg(args::dereg_mr{op}.h);
      break;
    case OpCode::rereg_mr: {
      const args::rereg_mr a{op};
      if (ok) b.rereg(a.h, a.flags, a.access, b.resolve(a.addr), a.len);
      break;
    }
    case OpCode::alloc_mw:
      if (ok) b.alloc_mw(args::alloc_mw{op}.h, mw_rkey(args::alloc_mw{op}.h));
      break;
    case OpCode::dealloc_mw:
      if (ok) b.dealloc_mw(args::dealloc_mw{op}.h);
      break;
    case OpCode::bind_mw: {  // ibv_bind_mw: the provider sets mw->rkey
      const args::bind_mw a{op};
      const uint64_t addr = b.resolve(a.addr);
      b.set_cur(a.mw, mw_rkey(a.mw));
      if (bound) book_key = b.bound(a.mw, a.mr, addr, a.len, a.access);
      break;
    }
    case OpCode::wr_bind_mw: {  // IBV_WR_BIND_MW: the consumer's rkey, once posted
      const args::wr_bind_mw a{op};
      const uint64_t addr = b.resolve(a.addr);
      if (ok) b.set_cur(a.mw, b.wr_rkey(a.mw, a.key));
      if (bound) book_key = b.bound(a.mw, a.mr, addr, a.len, a.access);
      break;
    }
    case OpCode::wr_local_inv:
      if (o.rule == Rule::inv_ok) b.invalidated(b.resolve_rkey(args::wr_local_inv{op}.rkey));
      break;
    case OpCode::peer_send_inv:
      if (o.rule == Rule::inv_ok) b.invalidated(b.resolve_rkey(args::peer_send_inv{op}.rkey));
      break;
    default: break;
  }
  return o;
}

}  // namespace mwc::verbs
