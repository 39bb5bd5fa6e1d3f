# mwcheck's device session (adapters/verbs/session_*.cpp) in pyverbs, for
# exported reproducers: one method per op of mwcheck's op table, each doing
# to the device what the session does and returning the outcome as
# mwcheck's canonical text (OK, EPERM, EMPTY, SKIP, TIMEOUT,
# IBV_WC_REM_ACCESS_ERR, IBV_WC_SUCCESS IBV_WC_BIND_MW, OK key=+1).
#
# Each trace QP gets a peer QP of the same type on the same device, in a PD
# of the runtime's own, connected to it in loopback through the device's
# RoCE v2 GID: the remote side of the peer_* ops. Trace buffers are mapped
# at the very addresses mwcheck's model gives them; rkeys are resolved from
# the trace's references (w0, w0.prev, m0, a raw number). What pyverbs
# cannot express (a bind without an MR, a bind work request's own key byte,
# a bind work request after the window's key moved, a zero-based MR) raises
# unittest.SkipTest naming it: the C export has it.
#
# The test mwcheck generates defines ERRNOS, WC_STATUSES and WC_OPCODES
# (from its vocabulary) before this text.
import ctypes
import errno
import faulthandler
import os
import time
import unittest

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context, get_device_list
from pyverbs.mr import MR, MW, MWBind, MWBindInfo
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

MWC_ACCESS_LOCAL_READ = 1 << 15  # DET's right; libibverbs has none
BUF_BASE = 0x100000000000  # buffer h lives at BASE + h * 2^32
SCRATCH = 1 << 20  # the peer's local buffer
SHADOW_MAX = 1 << 20  # buffers up to this size get data checks
INLINE = 64
CQ_DEPTH = 256
RETRY, ACK_TIMEOUT = 1, 14  # 4.096 us * 2^14 = 67 ms per try
U64 = (1 << 64) - 1


class Addr:
    """An address: raw, or relative to a buffer, an MR or a window."""
    def __init__(self, base, h, off):
        self.base, self.h, self.off = base, h, off

    @staticmethod
    def raw(v): return Addr('raw', None, v)
    @staticmethod
    def buf(h, off): return Addr('buf', h, off)
    @staticmethod
    def mr(h, off): return Addr('mr', h, off)
    @staticmethod
    def mw(h, off): return Addr('mw', h, off)


class Rkey:
    """A window's current rkey, the one before its last bind, an MR's, or a
    raw number (a guess, passed as it is); delta moves the key byte."""
    def __init__(self, base, h, delta):
        self.base, self.h, self.delta = base, h, delta

    @staticmethod
    def raw(v): return Rkey('raw', v, 0)
    @staticmethod
    def mw(h, d): return Rkey('mw', h, d)
    @staticmethod
    def prev(h, d): return Rkey('prev', h, d)
    @staticmethod
    def mr(h, d): return Rkey('mr', h, d)


class Key:
    """The key byte a BIND_MW work request asks for: relative to the
    window's current rkey, or absolute from its key byte at allocation."""
    def __init__(self, absolute, v):
        self.absolute, self.v = absolute, v

    @staticmethod
    def rel(d): return Key(False, d)
    @staticmethod
    def abs(v): return Key(True, v)


def outcome(ret, wc=None, wc_op=None, key=None):
    """The canonical text of an outcome (refmodel/outcome.cpp to_text)."""
    parts = [] if wc is not None and ret == 'OK' else [ret]
    parts += [p for p in (wc, wc_op) if p is not None]
    if key is not None:
        parts.append('key=+%d' % key)
    return ' '.join(parts)


def errno_name(n):
    return ERRNOS.get(n, 'EIO')


def wc_status_name(s):
    return WC_STATUSES.get(s, 'IBV_WC_GENERAL_ERR')


def fail(x):
    return outcome(errno_name(getattr(x, 'error_code', 0) or errno.EINVAL))


def with_key_byte(rkey, b):
    return (rkey & ~0xff) | (b & 0xff)


def fill_byte(va):
    return (((va * 131) & U64) >> 3 ^ va) & 0xff


def write_byte(op, i):
    return (op * 29 + i * 13 + 0x5a) & 0xff


def send_wr(wr_id, opcode, sges, flags=0):
    """A SendWR with these SGEs; none gives num_sge 0, as the C session
    posts it (pyverbs wants an SGE to construct one)."""
    wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=1, sg=sges or [SGE(0, 0, 0)], send_flags=flags)
    if not sges:
        wr.num_sge = 0
    return wr


class Buf:
    def __init__(self, p, length):
        self.p, self.len, self.shadow = p, length, None


class Mw:
    def __init__(self, mw):
        self.mw = mw
        self.alloc_byte = mw.rkey & 0xff
        self.cur = self.prev = mw.rkey  # the consumer's copy, and the one before
        self.bound = self.zero_based = False
        self.addr = self.len = 0


class Qp:
    def __init__(self):
        self.qp = self.peer = self.scq = self.rcq = self.pcq = None
        self.state = e.IBV_QPS_RESET
        self.type = self.pd = 0
        self.sig_all = True
        self.recvs = self.peer_recvs = 0
        self.stash = []   # (wr_id, status, opcode name): read, not yet polled
        self.posted = []  # (wr_id, opcode name, signaled): not yet completed


def setting(name):
    """Returns mwcheck's setting read from the environment variable `name`:
    a whole number in its range (SETTINGS), or its default when not set."""
    lo, hi, default = SETTINGS[name]
    s = os.environ.get(name)
    if s is None:
        return default
    if not s.isdigit() or not lo <= int(s) <= hi:
        raise ValueError('%s=%s: give a whole number from %d to %d' % (name, s, lo, hi))
    return int(s)


class Runtime:
    def __init__(self, device, caps):
        self.libc = ctypes.CDLL(None, use_errno=True)  # the process's own libc
        self.libc.mmap.restype = ctypes.c_void_p
        self.libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                                   ctypes.c_int, ctypes.c_long]
        self.op_index, self.next_wr = 0, 1
        self.settle = SETTLE_MS / 1000
        # A verb still inside after this long is given up on: the traceback
        # names the op, and the process ends as soon as the kernel lets it.
        self.stuck = setting('MWC_STUCK_MS') / 1000
        self.op_timeout = setting('MWC_OP_TIMEOUT_MS') / 1000
        # The port and GID index, as mwcheck's --port and --gid-index.
        self.port = setting('MWC_PORT')
        gid_index = setting('MWC_GID_INDEX')
        gid_index = None if gid_index < 0 else gid_index
        # A console, say: written before the op's verb is called, so a
        # machine whose kernel dies in it has the op's number as its last line.
        self.op_log = open(os.environ['MWC_OP_LOG'], 'w') if os.environ.get('MWC_OP_LOG') else None
        # Each line sent, not only queued, before the op: a kernel that dies
        # in it loses what its serial line had yet to send. (libc's tcdrain:
        # a guest's Python may lack the termios module.)
        self.tcdrain = ctypes.CDLL(None).tcdrain if self.op_log and self.op_log.isatty() else None
        self.first_diff = None
        self.outcomes = []
        self.closed = True  # until the device is open
        names = [d.name.decode() for d in get_device_list()]
        if not names:
            raise unittest.SkipTest('no RDMA device')
        self.ctx = Context(name=device or names[0])
        port = self.ctx.query_port(self.port)
        self.gid_index = gid_index
        for i in range(port.gid_tbl_len if gid_index is None else 0):
            try:
                g = self.ctx.query_gid_ex(self.port, i)
            except PyverbsError:
                continue
            iid = g.gid_interface_id
            v4 = g.gid_subnet_prefix == 0 and (iid & 0xffffffff) == 0xffff0000
            ok = (v4 and g.gid_type == e.IBV_GID_TYPE_ROCE_V2
                  if port.link_layer == e.IBV_LINK_LAYER_ETHERNET else iid != 0)
            if ok:
                self.gid_index = i
                break
        if self.gid_index is None:
            raise unittest.SkipTest('the device has no usable GID (for RoCE: an IPv4 address on its netdev)')
        self.gid = self.ctx.query_gid(self.port, self.gid_index)
        self.peer_pd = PD(self.ctx)
        self.scratch = MR(self.peer_pd, SCRATCH, e.IBV_ACCESS_LOCAL_WRITE)
        self.bufs = [None] * caps[0]
        self.pds = [None] * caps[1]
        self.mrs = [None] * caps[2]  # (MR, va, iova, len)
        self.mws = [None] * caps[3]
        self.qps = [None] * caps[4]
        self.closed = False

    def close(self):
        """Frees everything (once), windows first: a QP destroyed under a
        bound type 2 window stalls rxe."""
        if self.closed:
            return
        self.closed = True
        for w in self.mws:
            if w:
                w.mw.close()
        for q in self.qps:
            if q:
                for o in (q.qp, q.peer, q.scq, q.rcq, q.pcq):
                    if o:
                        o.close()
        for m in self.mrs:
            if m:
                m[0].close()
        for p in self.pds:
            if p:
                p.close()
        self.scratch.close()
        self.peer_pd.close()
        self.ctx.close()

    # ---- addresses, keys and data ------------------------------------------

    def resolve(self, a):
        if a.base == 'buf':
            return (BUF_BASE + (a.h << 32) + a.off) & U64
        if a.base == 'mr':
            m = self.mrs[a.h] if a.h < len(self.mrs) else None
            return ((m[2] if m else 0) + a.off) & U64
        if a.base == 'mw':
            w = self.mws[a.h] if a.h < len(self.mws) else None
            return ((w.addr if w and w.bound and not w.zero_based else 0) + a.off) & U64
        return a.off & U64

    def resolve_rkey(self, r):
        if r.base == 'raw':
            return r.h
        base = 0
        if r.base in ('mw', 'prev') and r.h < len(self.mws) and self.mws[r.h]:
            base = self.mws[r.h].cur if r.base == 'mw' else self.mws[r.h].prev
        elif r.base == 'mr' and r.h < len(self.mrs) and self.mrs[r.h]:
            base = self.mrs[r.h][0].rkey
        return with_key_byte(base, base + r.delta)

    def target_of(self, rkey, addr):
        for w in self.mws:
            if w and w.bound and (w.cur >> 8) == (rkey >> 8):
                return (w.addr + addr) & U64 if w.zero_based else addr
        for m in self.mrs:
            if m and (m[0].rkey >> 8) == (rkey >> 8):
                return (m[1] + addr) & U64 if m[2] == 0 else addr
        return addr

    def shadow_at(self, va, length):
        for b in self.bufs:
            if b and b.shadow is not None and b.p <= va and length <= b.len and va - b.p <= b.len - length:
                return b, va - b.p
        return None, 0

    def data_ok(self):
        ok = True
        for b in self.bufs:
            if not b or b.shadow is None:
                continue
            now = ctypes.string_at(b.p, b.len)
            if now != bytes(b.shadow):
                ok = False
                b.shadow = bytearray(now)  # report once, then go on from here
        return ok

    # ---- resources ------------------------------------------------------------

    def buf(self, h, length):
        if h >= len(self.bufs) or self.bufs[h]:
            return outcome('SKIP')
        va = BUF_BASE + (h << 32)
        prot, flags = 0x3, 0x02 | 0x20 | 0x4000 | 0x100000  # RW; PRIVATE ANON NORESERVE FIXED_NOREPLACE
        p = self.libc.mmap(va, length, prot, flags, -1, 0)
        if p is None or p == ctypes.c_void_p(-1).value:
            return outcome(errno_name(ctypes.get_errno()))
        b = Buf(p, length)
        if length <= SHADOW_MAX:
            b.shadow = bytearray(fill_byte(va + i) for i in range(length))
            ctypes.memmove(p, bytes(b.shadow), length)
        self.bufs[h] = b
        return outcome('OK')

    def alloc_pd(self, h):
        if h >= len(self.pds) or self.pds[h]:
            return outcome('SKIP')
        try:
            self.pds[h] = PD(self.ctx)
        except PyverbsRDMAError as x:
            return fail(x)
        return outcome('OK')

    def dealloc_pd(self, h):
        if h >= len(self.pds) or not self.pds[h]:
            return outcome('SKIP')
        try:
            self.pds[h].close()
        except PyverbsRDMAError as x:
            return fail(x)
        self.pds[h] = None
        return outcome('OK')

    def _reg(self, h, pd, addr, length, access):
        if pd is None or pd >= len(self.pds) or not self.pds[pd] or h >= len(self.mrs) or self.mrs[h]:
            return outcome('SKIP')
        if access & e.IBV_ACCESS_ZERO_BASED:
            raise unittest.SkipTest('pyverbs cannot register an MR at iova 0 (ibv_reg_mr_iova2)')
        va = self.resolve(addr)
        try:
            mr = MR(self.pds[pd], length, access & ~MWC_ACCESS_LOCAL_READ, address=va)
        except PyverbsRDMAError as x:
            return fail(x)
        self.mrs[h] = (mr, va, va, length)
        return outcome('OK')

    def reg_mr(self, h, pd, addr, length, access):
        return self._reg(h, pd, addr, length, access)

    # librdmacm's rdma_reg_msgs/read/write are ibv_reg_mr with these rights.
    def rdma_reg_msgs(self, h, pd, addr, length):
        return self._reg(h, pd, addr, length, e.IBV_ACCESS_LOCAL_WRITE)

    def rdma_reg_read(self, h, pd, addr, length):
        return self._reg(h, pd, addr, length, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ)

    def rdma_reg_write(self, h, pd, addr, length):
        return self._reg(h, pd, addr, length, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE)

    def dereg_mr(self, h):
        if h >= len(self.mrs) or not self.mrs[h]:
            return outcome('SKIP')
        try:
            self.mrs[h][0].close()
        except PyverbsRDMAError as x:
            return fail(x)
        self.mrs[h] = None
        return outcome('OK')

    def rdma_dereg_mr(self, h):
        return self.dereg_mr(h)

    def rereg_mr(self, h, flags, pd, addr, length, access):
        if h >= len(self.mrs) or not self.mrs[h]:
            return outcome('SKIP')
        mr, va0, iova, len0 = self.mrs[h]
        va = self.resolve(addr)
        p = self.pds[pd] if pd is not None and pd < len(self.pds) else None
        try:
            mr.rereg(flags, p, va, length, access & ~(MWC_ACCESS_LOCAL_READ | e.IBV_ACCESS_ZERO_BASED))
        except PyverbsRDMAError as x:
            return fail(x)
        # As mwcheck's iova_after_rereg (refmodel/layout.hpp): a dereg then a
        # reg with what the flags change, so the iova is 0 exactly when the
        # access left is ZERO_BASED (no buffer is at 0).
        zb = bool(access & e.IBV_ACCESS_ZERO_BASED) if flags & e.IBV_REREG_MR_CHANGE_ACCESS else iova == 0
        if flags & e.IBV_REREG_MR_CHANGE_TRANSLATION:
            va0, len0 = va, length
        self.mrs[h] = (mr, va0, 0 if zb else va0, len0)
        return outcome('OK')

    def alloc_mw(self, h, pd, mw_type):
        if pd >= len(self.pds) or not self.pds[pd] or h >= len(self.mws) or self.mws[h]:
            return outcome('SKIP')
        try:
            self.mws[h] = Mw(MW(self.pds[pd], mw_type))
        except PyverbsRDMAError as x:
            return fail(x)
        return outcome('OK')

    def dealloc_mw(self, h):
        if h >= len(self.mws) or not self.mws[h]:
            return outcome('SKIP')
        try:
            self.mws[h].mw.close()
        except PyverbsRDMAError as x:
            return fail(x)
        self.mws[h] = None
        return outcome('OK')

    # ---- queue pairs -------------------------------------------------------------

    def modify(self, qp, frm, to, qp_type, dest_qpn):
        """Returns 0 or the errno of ibv_modify_qp."""
        at = QPAttr()
        mask = e.IBV_QP_STATE
        at.qp_state = to
        rc = qp_type == e.IBV_QPT_RC
        if to == e.IBV_QPS_INIT and frm in (e.IBV_QPS_RESET, e.IBV_QPS_INIT):
            at.pkey_index, at.port_num = 0, self.port
            mask |= e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT
            if qp_type == e.IBV_QPT_UD:
                at.qkey = 0x11111111
                mask |= e.IBV_QP_QKEY
            else:
                at.qp_access_flags = e.IBV_ACCESS_REMOTE_WRITE | (
                    e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC if rc else 0)
                mask |= e.IBV_QP_ACCESS_FLAGS
        if frm == e.IBV_QPS_INIT and to == e.IBV_QPS_RTR and qp_type in (e.IBV_QPT_RC, e.IBV_QPT_UC):
            at.path_mtu = e.IBV_MTU_1024
            at.dest_qp_num = dest_qpn
            at.rq_psn = 0
            gr = GlobalRoute(dgid=self.gid, sgid_index=self.gid_index, hop_limit=1)
            at.ah_attr = AHAttr(gr=gr, is_global=1, port_num=self.port)
            mask |= e.IBV_QP_AV | e.IBV_QP_PATH_MTU | e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN
            if rc:
                at.max_dest_rd_atomic, at.min_rnr_timer = 1, 1
                mask |= e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER
        if frm == e.IBV_QPS_RTR and to == e.IBV_QPS_RTS:
            at.sq_psn = 0
            mask |= e.IBV_QP_SQ_PSN
            if rc:
                at.timeout, at.retry_cnt, at.rnr_retry, at.max_rd_atomic = ACK_TIMEOUT, RETRY, RETRY, 1
                mask |= e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT | e.IBV_QP_RNR_RETRY | e.IBV_QP_MAX_QP_RD_ATOMIC
        try:
            qp.modify(at, mask)
        except PyverbsRDMAError as x:
            return x.error_code or errno.EINVAL
        return 0

    def post_recv(self, qp, with_buffer):
        """Posts one receive; returns 1 when it was posted."""
        wr_id, self.next_wr = self.next_wr, self.next_wr + 1
        wr = RecvWR(wr_id, 1, [SGE(self.scratch.buf, INLINE, self.scratch.lkey)])
        if not with_buffer:
            wr.num_sge = 0  # as the C session posts it (pyverbs wants an SGE to construct one)
        try:
            qp.post_recv(wr)
        except PyverbsError:
            return 0
        return 1

    def reconnect_peer(self, q):
        """Brings the peer back to RTS, connected to q."""
        while q.pcq.poll(16)[0] > 0:
            pass
        self.modify(q.peer, e.IBV_QPS_RTS, e.IBV_QPS_RESET, q.type, 0)
        q.peer_recvs = 0
        path = [e.IBV_QPS_RESET, e.IBV_QPS_INIT, e.IBV_QPS_RTR, e.IBV_QPS_RTS]
        for a, b in zip(path, path[1:]):
            if self.modify(q.peer, a, b, q.type, q.qp.qp_num):
                return
        q.peer_recvs += self.post_recv(q.peer, True)

    @staticmethod
    def free_qp(q):
        for o in (q.qp, q.peer, q.scq, q.rcq, q.pcq):
            if o:
                o.close()

    def create_qp(self, h, pd, qp_type, depth, sig_all, state):
        if pd >= len(self.pds) or not self.pds[pd] or h >= len(self.qps) or self.qps[h]:
            return outcome('SKIP')
        q = Qp()
        q.type, q.pd, q.sig_all = qp_type, pd, sig_all != 0
        try:
            q.scq, q.rcq, q.pcq = (CQ(self.ctx, CQ_DEPTH) for _ in range(3))
            cap = QPCap(max_send_wr=depth, max_recv_wr=8, max_send_sge=1, max_recv_sge=1,
                        max_inline_data=INLINE)
            q.qp = QP(self.pds[pd], QPInitAttr(qp_type=qp_type, scq=q.scq, rcq=q.rcq, cap=cap,
                                               sq_sig_all=int(q.sig_all)))
            pcap = QPCap(max_send_wr=16, max_recv_wr=8, max_send_sge=1, max_recv_sge=1,
                         max_inline_data=INLINE)
            q.peer = QP(self.peer_pd, QPInitAttr(qp_type=qp_type, scq=q.pcq, rcq=q.pcq, cap=pcap,
                                                 sq_sig_all=1))
        except PyverbsRDMAError as x:
            self.free_qp(q)
            return fail(x)
        self.reconnect_peer(q)
        # create_qp's state is reached by the transitions from RESET; if one
        # fails, the QP is not made at all.
        rc = 0
        if state in (e.IBV_QPS_ERR, e.IBV_QPS_SQE):
            rc = self.modify(q.qp, e.IBV_QPS_RESET, state, q.type, 0)
        else:
            path = [e.IBV_QPS_RESET, e.IBV_QPS_INIT, e.IBV_QPS_RTR, e.IBV_QPS_RTS, e.IBV_QPS_SQD]
            for a, b in zip(path, path[1:path.index(state) + 1]):
                rc = self.modify(q.qp, a, b, q.type, q.peer.qp_num)
                if rc:
                    break
        if rc:
            self.free_qp(q)
            return outcome(errno_name(rc))
        q.state = state
        self.qps[h] = q
        return outcome('OK')

    def modify_qp(self, h, state):
        if h >= len(self.qps) or not self.qps[h]:
            return outcome('SKIP')
        q = self.qps[h]
        try:  # the device's own view: errors move QPs without asking
            q.state = q.qp.query(e.IBV_QP_STATE)[0].qp_state
        except PyverbsError:
            pass
        rc = self.modify(q.qp, q.state, state, q.type, q.peer.qp_num)
        if rc:
            return outcome(errno_name(rc))
        q.state = state
        if state == e.IBV_QPS_RESET:
            q.recvs = 0
        if state == e.IBV_QPS_RTR:
            self.reconnect_peer(q)
        return outcome('OK')

    def destroy_qp(self, h):
        if h >= len(self.qps) or not self.qps[h]:
            return outcome('SKIP')
        q = self.qps[h]
        try:
            q.qp.close()
        except PyverbsRDMAError as x:
            return fail(x)
        q.qp = None
        self.free_qp(q)
        self.qps[h] = None
        return outcome('OK')

    # ---- completions --------------------------------------------------------------

    def drain(self, q):
        """Reads every completion of q's queues that has arrived."""
        while True:
            n, wcs = q.scq.poll(16)
            if n <= 0:
                break
            for wc in wcs[:n]:
                # Send queues complete in order; an error completion's
                # opcode is undefined in verbs: the posting says.
                op = WC_OPCODES.get(wc.opcode)
                for p in q.posted:
                    if p[0] == wc.wr_id:
                        op = p[1]
                q.stash.append((wc.wr_id, wc.status, op))
                q.posted = [p for p in q.posted if p[0] > wc.wr_id]
        while True:
            n, _ = q.rcq.poll(16)
            if n <= 0:
                break
            q.recvs -= n

    def wait_for(self, q, wr_id, seconds):
        """Returns the status of wr_id's completion, or None after `seconds`."""
        end = time.monotonic() + seconds
        while True:
            self.drain(q)
            for w in q.stash:
                if w[0] == wr_id:
                    return w[1]
            if time.monotonic() >= end:
                return None
            time.sleep(0.0001)

    def post(self, q, wr, op, flags):
        """Posts on a trace QP and waits until it has executed. Returns the
        post's outcome text and the completion's status (or None)."""
        wr.wr_id, self.next_wr = self.next_wr, self.next_wr + 1
        wr.send_flags |= flags & (e.IBV_SEND_SIGNALED | e.IBV_SEND_FENCE)
        try:
            q.qp.post_send(wr)
        except PyverbsRDMAError as x:
            return fail(x), None
        signaled = q.sig_all or bool(flags & e.IBV_SEND_SIGNALED)
        q.posted.append((wr.wr_id, op, signaled))
        wait = self.op_timeout if signaled and q.state != e.IBV_QPS_SQD else self.settle
        return outcome('OK'), self.wait_for(q, wr.wr_id, wait)

    def poll_cq(self, qp):
        if qp >= len(self.qps) or not self.qps[qp]:
            return outcome('SKIP')
        q = self.qps[qp]
        self.drain(q)
        # A QP in SQD holds its completions: an empty queue is EMPTY there.
        pending = q.state != e.IBV_QPS_SQD and any(p[2] for p in q.posted)
        end = time.monotonic() + (self.op_timeout if pending else self.settle)
        while not q.stash and time.monotonic() < end:
            time.sleep(0.0001)
            self.drain(q)
        if not q.stash:
            if not pending:
                return outcome('EMPTY')
            q.posted = []  # reported once; later polls say EMPTY
            return outcome('TIMEOUT')
        _, st, op = q.stash.pop(0)
        return outcome('OK', wc_status_name(st), op)

    # ---- binds and invalidation --------------------------------------------------------

    def _bind(self, qp, mw, mr, addr, length, access, flags, key):
        if (qp >= len(self.qps) or not self.qps[qp] or mw >= len(self.mws) or not self.mws[mw] or
                (mr is not None and (mr >= len(self.mrs) or not self.mrs[mr]))):
            return outcome('SKIP')
        if mr is None:
            raise unittest.SkipTest('pyverbs cannot bind a window without an MR (MWBindInfo needs one)')
        q, w = self.qps[qp], self.mws[mw]
        va = self.resolve(addr)
        info = MWBindInfo(self.mrs[mr][0], va, length, access & ~MWC_ACCESS_LOCAL_READ)
        before, st, ret = w.cur, e.IBV_WC_SUCCESS, 'OK'
        if key is None:
            # ibv_bind_mw posts the request itself and updates mw->rkey.
            wr_id, self.next_wr = self.next_wr, self.next_wr + 1
            try:
                q.qp.bind_mw(w.mw, MWBind(info, flags & (e.IBV_SEND_SIGNALED | e.IBV_SEND_FENCE)))
                rc = 0
            except PyverbsRDMAError as x:
                rc = x.error_code or errno.EINVAL
            w.cur = w.mw.rkey
            if rc:
                ret = errno_name(rc)
            else:
                signaled = q.sig_all or bool(flags & e.IBV_SEND_SIGNALED)
                q.posted.append((wr_id, 'IBV_WC_BIND_MW', signaled))
                got = self.wait_next(q, self.op_timeout if signaled else self.settle)
                st = got if got is not None else st
        else:
            want = (w.alloc_byte + key.v if key.absolute else w.cur + key.v) & 0xff
            # The provider names the window by its rkey field, which a
            # consumer keeps current; pyverbs's MW.rkey cannot be set.
            if w.mw.rkey != w.cur:
                raise unittest.SkipTest('pyverbs cannot keep a window\'s rkey field current (MW.rkey cannot be '
                                        'set): the bind work request would name the window by 0x%x, not 0x%x'
                                        % (w.mw.rkey, w.cur))
            wr = send_wr(0, e.IBV_WR_BIND_MW, None)
            wr.set_bind_wr(w.mw, info)
            if wr.rkey != with_key_byte(w.cur, want):
                raise unittest.SkipTest('pyverbs cannot choose a bind work request\'s key (SendWR.set_bind_wr '
                                        'posts ibv_inc_rkey(mw->rkey) = 0x%x); the trace asks for 0x%x'
                                        % (wr.rkey, with_key_byte(w.cur, want)))
            ret, got = self.post(q, wr, 'IBV_WC_BIND_MW', flags)
            ret = ret.split()[0]
            st = got if got is not None else st
            if ret == 'OK':
                w.cur = wr.rkey  # the consumer's copy
        if w.cur != before:
            w.prev = before
        key_out = None
        if ret == 'OK' and st == e.IBV_WC_SUCCESS:
            key_out = ((w.cur & 0xff) - w.alloc_byte) & 0xff
            w.bound, w.addr, w.len = length != 0, va, length
            w.zero_based = bool(access & e.IBV_ACCESS_ZERO_BASED)
        return outcome(ret, key=key_out)

    def wait_next(self, q, seconds):
        """The status of the next completion q reads, or None after `seconds`
        (the request ibv_bind_mw posts carries a wr_id pyverbs chooses)."""
        end = time.monotonic() + seconds
        seen = len(q.stash)
        while True:
            self.drain(q)
            if len(q.stash) > seen:
                wr_id, st, _ = q.stash[seen]
                q.stash[seen] = (wr_id, st, 'IBV_WC_BIND_MW')
                q.posted = [p for p in q.posted if p[1] != 'IBV_WC_BIND_MW']
                return st
            if time.monotonic() >= end:
                return None
            time.sleep(0.0001)

    def bind_mw(self, qp, mw, mr, addr, length, access, flags):
        return self._bind(qp, mw, mr, addr, length, access, flags, None)

    def wr_bind_mw(self, qp, mw, mr, addr, length, access, key, flags):
        return self._bind(qp, mw, mr, addr, length, access, flags, key)

    def det_bind(self, qp, mw, mr, addr, length, access, flags):
        return outcome('UNSUPPORTED')  # DET's verb is not in libibverbs

    def unbind_rkey(self, rkey):
        for w in self.mws:
            if w and w.cur == rkey:
                w.bound = False

    def wr_local_inv(self, qp, rkey, flags):
        if qp >= len(self.qps) or not self.qps[qp]:
            return outcome('SKIP')
        wr = send_wr(0, e.IBV_WR_LOCAL_INV, None)
        wr.imm_data = self.resolve_rkey(rkey)  # invalidate_rkey shares imm_data's place
        ret, st = self.post(self.qps[qp], wr, 'IBV_WC_LOCAL_INV', flags)
        if st == e.IBV_WC_SUCCESS:
            self.unbind_rkey(wr.imm_data)
        return ret

    def wr_send(self, qp, length, flags):
        if qp >= len(self.qps) or not self.qps[qp]:
            return outcome('SKIP')
        if length > INLINE:
            return outcome('UNSUPPORTED')  # only inline sends
        q = self.qps[qp]
        # The peer takes every send, as mwcheck's session has it: its used
        # receives are reaped first (else a second send finds none and ends
        # IBV_WC_RNR_RETRY_EXC_ERR), and two are kept posted, one for a
        # receive whose completion is still on its way.
        self.take_peer_completions(q)
        for _ in range(2):
            if q.peer_recvs >= 2:
                break
            q.peer_recvs += self.post_recv(q.peer, True)
        data = ctypes.create_string_buffer(INLINE)
        sg = [SGE(ctypes.addressof(data), length, 0)] if length else None
        wr = send_wr(0, e.IBV_WR_SEND, sg, e.IBV_SEND_INLINE if length else 0)
        return self.post(q, wr, 'IBV_WC_SEND', flags)[0]

    # ---- the peer's requests ------------------------------------------------------------

    @staticmethod
    def take_peer_completions(q, wr_id=None):
        """Takes the peer's completions: counts its receives that completed,
        and returns the status of its request wr_id once that completes
        (None before). Receives are its only other news: each of its own
        requests was waited for, and one that timed out is nobody's now."""
        while True:
            n, wcs = q.pcq.poll(16)
            if n <= 0:
                return None
            for wc in wcs[:n]:
                if wc.opcode & e.IBV_WC_RECV:
                    q.peer_recvs -= 1
                elif wr_id is not None and wc.wr_id == wr_id:
                    return wc.status

    def wait_peer(self, q, wr_id):
        end = time.monotonic() + self.op_timeout
        while True:
            status = self.take_peer_completions(q, wr_id)
            if status is not None:
                return status
            if time.monotonic() >= end:
                return None
            time.sleep(0.0001)

    def remote(self, qp, rkey_ref, addr_ref, length, opcode, a0, a1):
        if qp >= len(self.qps) or not self.qps[qp]:
            return outcome('SKIP')
        if length > SCRATCH:
            return outcome('UNSUPPORTED')
        q = self.qps[qp]
        rkey, raddr = self.resolve_rkey(rkey_ref), self.resolve(addr_ref)
        atomic = opcode in (e.IBV_WR_ATOMIC_FETCH_AND_ADD, e.IBV_WR_ATOMIC_CMP_AND_SWP)
        data = bytes(write_byte(self.op_index, i) if opcode == e.IBV_WR_RDMA_WRITE else 0
                     for i in range(length))
        if length:
            self.scratch.write(data, length)
        wr_id, self.next_wr = self.next_wr, self.next_wr + 1
        sg = [SGE(self.scratch.buf, length, self.scratch.lkey)] if length else None
        wr = send_wr(wr_id, opcode, sg, e.IBV_SEND_SIGNALED)
        if atomic:
            wr.set_wr_atomic(rkey, raddr, a0, a1)
        else:
            wr.set_wr_rdma(rkey, raddr)
        try:
            q.peer.post_send(wr)
        except PyverbsRDMAError as x:
            return fail(x)
        st = self.wait_peer(q, wr_id)
        if st is None:
            return outcome('TIMEOUT')
        self.drain(q)
        # The data: what the access should have done to memory, then whether
        # it did. UC has no acknowledgements: either memory is right there.
        if q.type == e.IBV_QPT_UC and opcode == e.IBV_WR_RDMA_WRITE and st == e.IBV_WC_SUCCESS and self.data_ok():
            return outcome('OK', wc_status_name(st))
        ok = True
        if st == e.IBV_WC_SUCCESS:
            got = self.scratch.read(length, 0) if length else b''
            b, at = self.shadow_at(self.target_of(rkey, raddr), length)
            if b is not None and opcode == e.IBV_WR_RDMA_WRITE:
                b.shadow[at:at + length] = data
            if b is not None and opcode == e.IBV_WR_RDMA_READ:
                ok = bytes(b.shadow[at:at + length]) == got
            if b is not None and atomic:
                old = int.from_bytes(b.shadow[at:at + 8], 'little')
                ok = old == int.from_bytes(got[:8], 'little')
                now = (old + a0) & U64 if opcode == e.IBV_WR_ATOMIC_FETCH_AND_ADD else (a1 if old == a0 else old)
                b.shadow[at:at + 8] = now.to_bytes(8, 'little')
        ok = self.data_ok() and ok
        return outcome('OK' if ok else 'CORRUPT', wc_status_name(st))

    def peer_write(self, qp, rkey, addr, length):
        return self.remote(qp, rkey, addr, length, e.IBV_WR_RDMA_WRITE, 0, 0)

    def peer_read(self, qp, rkey, addr, length):
        return self.remote(qp, rkey, addr, length, e.IBV_WR_RDMA_READ, 0, 0)

    def peer_fetch_add(self, qp, rkey, addr, add):
        return self.remote(qp, rkey, addr, 8, e.IBV_WR_ATOMIC_FETCH_AND_ADD, add, 0)

    def peer_cmp_swap(self, qp, rkey, addr, compare, swap):
        return self.remote(qp, rkey, addr, 8, e.IBV_WR_ATOMIC_CMP_AND_SWP, compare, swap)

    def peer_send_inv(self, qp, rkey):
        if qp >= len(self.qps) or not self.qps[qp]:
            return outcome('SKIP')
        q = self.qps[qp]
        self.drain(q)
        if q.recvs <= 0 and q.state not in (e.IBV_QPS_RESET, e.IBV_QPS_ERR):
            q.recvs = self.post_recv(q.qp, False)
        wr_id, self.next_wr = self.next_wr, self.next_wr + 1
        wr = send_wr(wr_id, e.IBV_WR_SEND_WITH_INV, None, e.IBV_SEND_SIGNALED)
        wr.imm_data = self.resolve_rkey(rkey)  # invalidate_rkey shares imm_data's place
        try:
            q.peer.post_send(wr)
        except PyverbsRDMAError as x:
            return fail(x)
        st = self.wait_peer(q, wr_id)
        if st is None:
            return outcome('TIMEOUT')
        self.drain(q)
        if st == e.IBV_WC_SUCCESS:
            self.unbind_rkey(wr.imm_data)
        return outcome('OK', wc_status_name(st))

    # ---- the verdict ----------------------------------------------------------------------

    def begin(self, i, op):
        """Op i starts: prints its trace text first, so that a crash in it
        is seen in it (and remote writes put bytes that depend on i)."""
        self.op_index = i + 1
        self.op_text = op
        print('[%d] %s' % (i + 1, op), flush=True)  # numbered from 1, as mwcheck's reports do
        if self.op_log:
            print('MWCHECK-OP %d' % i, file=self.op_log, flush=True)
            if self.tcdrain:
                self.tcdrain(self.op_log.fileno())
        faulthandler.dump_traceback_later(self.stuck, exit=True)
        self.op_start = time.monotonic()

    def check(self, i, expected, seen):
        """Prints what op i was expected to do and what it did; notes the
        first op that differed ('*': anything is as expected). A verb that
        returned only after the op timeout did not finish in time: TIMEOUT,
        as mwcheck's device session sees it."""
        faulthandler.cancel_dump_traceback_later()
        took, late = time.monotonic() - self.op_start, ''
        if took > self.op_timeout + 1 and seen != 'TIMEOUT':
            late, seen = ' (returned %s after %.1f s)' % (seen, took), 'TIMEOUT'
        same = expected in ('*', seen)
        print('    expected: %s\n    seen:     %s%s%s' % (expected, seen, late, '' if same else '   <-- differs'),
              flush=True)
        self.outcomes.append((i, self.op_text, expected, seen))
        if not same and self.first_diff is None:
            self.first_diff = i

    def verdict(self, test, finding, op):
        """Fails `test` when the device differs: REPRODUCED when op `op` is
        the first to differ, OTHER PATH when an earlier op already did."""
        self.close()
        if self.first_diff is None:
            print('%s: NOT REPRODUCED: every op as expected (fixed?)' % finding, flush=True)
            return
        i, text, expected, seen = self.outcomes[self.first_diff]
        if self.first_diff == op:
            test.fail('%s: REPRODUCED at op %d (%s): expected %s, seen %s' % (finding, i + 1, text, expected, seen))
        test.fail('%s: OTHER PATH: op %d (%s) differed before op %d: expected %s, seen %s' %
                  (finding, i + 1, text, op + 1, expected, seen))
