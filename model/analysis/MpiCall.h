#pragma once
// One MPI call's columns (EventKind::Mpi) read into a struct, with the rules the stats
// reports, the exports and the event details share: which values mean "none" (-1 ranks and
// tags, 0 handles) and which byte count is a point-to-point message's size.
#include <cstdint>

#include "model/core/Track.h"

namespace sl::analysis {

struct MpiCall {
    MpiCallClass callClass = MpiCallClass::Other;
    uint64_t comm = 0;     // communicator handle, 0: none
    int32_t peer = -1;     // destination, or the source received from; -1: none
    int32_t tag = -1;      // -1: none
    int32_t root = -1;     // collectives with a root; -1: none
    int64_t bytes = 0;     // sent (collectives: this rank's send size)
    int64_t recvBytes = 0; // received
    uint64_t request = 0;  // request handle of nonblocking calls and waits, 0: none

    // A point-to-point call's message size, as nsys's MPI_P2P_EVENTS.size: the bytes sent,
    // or for a receive (nothing sent) the bytes received.
    int64_t p2pSize() const { return bytes != 0 ? bytes : recvBytes; }
};

inline MpiCall mpiCallAt(const Track& t, size_t i) {
    MpiCall c;
    const int64_t cls = t.intAt(cols::Mpi::CallClass, i);
    c.callClass = cls >= 0 && cls <= 3 ? static_cast<MpiCallClass>(cls) : MpiCallClass::Other;
    c.comm = static_cast<uint64_t>(t.intAt(cols::Mpi::Comm, i));
    c.peer = static_cast<int32_t>(t.intAt(cols::Mpi::Peer, i));
    c.tag = static_cast<int32_t>(t.intAt(cols::Mpi::Tag, i));
    c.root = static_cast<int32_t>(t.intAt(cols::Mpi::Root, i));
    c.bytes = t.intAt(cols::Mpi::Bytes, i);
    c.recvBytes = t.intAt(cols::Mpi::RecvBytes, i);
    c.request = static_cast<uint64_t>(t.intAt(cols::Mpi::Request, i));
    return c;
}

}  // namespace sl::analysis
