// Caching memory pool. See pool.hpp and shared/ALLOCATOR.md.
//
// Free blocks of every stream live in one ordered set keyed by
// (pool, stream, size, address), so best fit within a stream is one
// lower_bound and the streams holding free blocks can be enumerated by
// jumping over keys. Set and hash-map nodes and Block objects are recycled,
// so a cached alloc/free pair does no heap allocation. In front of the set, a
// small fast cache parks freed blocks by (stream, exact size) so a repeated
// same-size alloc/free pair skips the split and the merge (see pool.hpp).
#include "core/pool.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace ek {

namespace {
size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

std::string hex(uintptr_t a) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIxPTR, a);
  return buf;
}
}  // namespace

std::string format_bytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  static const char *units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int i = -1;
  while (v >= 1024 && i < 5) {
    v /= 1024;
    ++i;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f %s", v, units[i]);
  return buf;
}

namespace detail {
NodeArena::~NodeArena() {
  for (void *c : chunks_) ::operator delete(c);
}

void *NodeArena::get(size_t bytes) {
  if (bytes > kSlot) return ::operator new(bytes);  // hash bucket arrays
  if (!free_) {
    // Grow by a chunk of slots; chunks are kept until the arena dies.
    constexpr size_t kPerChunk = 256;
    char *chunk = static_cast<char *>(::operator new(kSlot * kPerChunk));
    chunks_.push_back(chunk);
    for (size_t i = 0; i < kPerChunk; ++i) put(chunk + i * kSlot, kSlot);
  }
  Slot *s = free_;
  free_ = s->next;
  return s;
}

void NodeArena::put(void *p, size_t bytes) {
  if (bytes > kSlot) return ::operator delete(p);
  Slot *s = static_cast<Slot *>(p);
  s->next = free_;
  free_ = s;
}
}  // namespace detail

bool Pool::FreeOrder::less(const FreeKey &a, const FreeKey &b) {
  if (a.small != b.small) return a.small < b.small;
  if (a.stream != b.stream) return a.stream < b.stream;
  if (a.size != b.size) return a.size < b.size;
  return a.addr < b.addr;
}

Pool::Pool(RawMemory &mem, StreamSync &sync, PoolConfig cfg)
    : mem_(mem),
      sync_(sync),
      cfg_(cfg),
      free_(FreeOrder(), detail::ArenaAlloc<Block *>(&arena_)),
      live_(4096) {
  spare_blocks_.reserve(1024);
}

Pool::~Pool() {
  for (auto &kv : streams_) {
    if (kv.second.fence) sync_.destroy(kv.second.fence);
    for (uint64_t g : kv.second.guards) sync_.destroy(g);
  }
  for (Block *b : pending_)
    for (uint64_t e : b->events) sync_.destroy(e);
  for (auto &kv : segments_) mem_.release(reinterpret_cast<void *>(kv.first), kv.second.size);
}

// ---------------------------------------------------------------- allocate

PoolResult Pool::allocate(size_t bytes, uint64_t stream_id, void **ptr, std::string *error) {
  if (!ptr || stream_id == kSharedStream) {
    if (error) *error = "invalid allocate: null result pointer or reserved stream id";
    return PoolResult::invalid;
  }
  *ptr = nullptr;
  if (bytes == 0) return PoolResult::ok;
  // Sizes that would overflow when rounded can never be satisfied.
  size_t size = bytes > SIZE_MAX - kLargeRound ? 0 : round_up(bytes, kRound);
  std::unique_lock<std::mutex> lk(mu_);
  tried_segment_ = 0;
  Block *b = size ? try_allocate(size, stream_id) : nullptr;
  if (!b && size && oom_cb_) {
    // The callback may free memory through this pool, so run it unlocked
    // (after telling what the failed attempt released).
    auto cb = oom_cb_;
    std::string cause = grow_failure();
    fire_queued(lk);
    cb(bytes, cause);
    lk.lock();
    ++st_.retries;
    b = try_allocate(size, stream_id);
  }
  if (!b) {
    ++st_.oom_count;
    if (error) *error = oom_message(bytes);
    fire_queued(lk);
    return PoolResult::out_of_memory;
  }
  b->requested = bytes;
  b->stream = stream_id;
  live_.insert(b->addr, b);
  st_.allocated_bytes += b->size;
  st_.requested_bytes += bytes;
  st_.total_allocated_bytes += b->size;
  ++st_.active_blocks;
  ++st_.alloc_count;
  st_.peak_allocated_bytes = std::max(st_.peak_allocated_bytes, st_.allocated_bytes);
  st_.peak_requested_bytes = std::max(st_.peak_requested_bytes, st_.requested_bytes);
  *ptr = reinterpret_cast<void *>(b->addr);
  // Rare (a segment came or went): keep the call off the hot path.
  if (threshold_fire_ || !events_.empty()) fire_queued(lk);
  return PoolResult::ok;
}

// search -> grow -> release cached segments -> search -> grow, where a
// segment of the request's own size is the last resort
Pool::Block *Pool::try_allocate(size_t size, uint64_t stream) {
  if (Block *b = search(size, stream)) return b;
  if (Block *b = grow(size, stream, false)) return b;
  if (frozen()) return grow(size, stream, true);  // releasing the cache would wait on events
  ++st_.retries;
  release_cached("to retry an allocation");
  if (Block *b = search(size, stream)) return b;
  return grow(size, stream, true);
}

Pool::Block *Pool::search(size_t size, uint64_t stream) {
  if (Block *b = unpark(size, stream)) {
    ++st_.cache_hits;
    return b;
  }
  flush_parked(stream);  // own bins exactly as without the fast cache
  bool small = size <= kSmallRequest;
  auto it = best_fit(small, stream, size);
  if (it == free_.end() && !frozen() && poll_pending()) it = best_fit(small, stream, size);
  Block *b = nullptr;
  if (it != free_.end()) {
    b = *it;
    free_.erase(it);
  } else {
    flush_all_parked();  // other streams and growth see coalesced bins too
    if (!frozen()) b = take_from_other_streams(size, stream);
  }
  if (!b) return nullptr;
  ++st_.cache_hits;
  return use_block(b, size);
}

Pool::FreeSet::iterator Pool::best_fit(bool small, uint64_t stream, size_t size) {
  auto it = free_.lower_bound(FreeKey{small, stream, size, 0});
  if (it == free_.end() || (*it)->small != small || (*it)->stream != stream) return free_.end();
  // Blocks are ordered by size: if the smallest fit is unusable, so are the rest.
  return usable(*it, size) ? it : free_.end();
}

// Cached blocks above max_split_size only serve requests that are at least
// that large and would not waste more than kOversizeSlack.
bool Pool::usable(const Block *b, size_t size) const {
  if (b->size <= cfg_.max_split_size) return true;
  return size >= cfg_.max_split_size && b->size - size <= kOversizeSlack;
}

// Best fit over the other streams' bins: a block whose events completed wins,
// else (if allowed) the allocating stream waits on the owner's event GPU-side.
Pool::Block *Pool::take_from_other_streams(size_t size, uint64_t stream) {
  bool small = size <= kSmallRequest;
  Candidate best;
  auto it = free_.lower_bound(FreeKey{small, 0, 0, 0});
  while (it != free_.end() && (*it)->small == small) {
    uint64_t owner = (*it)->stream;
    if (owner != stream) {
      Candidate c = candidate_on(small, owner, size);
      bool better = c.block && (!best.block || c.safe > best.safe ||
                                (c.safe == best.safe && c.block->size < best.block->size));
      if (better) best = c;
    }
    if (owner == UINT64_MAX) break;
    it = free_.lower_bound(FreeKey{small, owner + 1, 0, 0});
  }
  if (!best.block || (!best.safe && !cfg_.cross_stream_wait)) return nullptr;
  if (!best.safe) wait_for(best.block, stream);
  free_.erase(best.block->where);
  // From now on the block is the allocating stream's; its split remainder is
  // covered by that stream's future fences (which follow the wait above).
  best.block->stream = stream;
  best.block->free_seq = ++seq_;
  return best.block;
}

Pool::Candidate Pool::candidate_on(bool small, uint64_t owner, size_t size) {
  auto it = best_fit(small, owner, size);
  if (it == free_.end()) return {};
  return {*it, is_safe(*it)};
}

Pool::Block *Pool::grow(size_t size, uint64_t stream, bool exact_fallback) {
  bool small = size <= kSmallRequest;
  size_t seg = small ? kSmallSegment
                     : size <= kMediumRequest ? kMediumSegment : round_up(size, kLargeRound);
  void *p = nullptr;
  if (!reserve(seg, size, &p)) {
    // Where the limit or the device has no room for the usual segment, one
    // of the request's own size may still fit.
    if (!exact_fallback || seg == size || !reserve(size, size, &p)) return nullptr;
    seg = size;
  }
  uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  Segment &s = segments_.emplace(addr, Segment{addr, seg, stream, small, nullptr}).first->second;
  Block *b = new_block();
  b->addr = addr;
  b->size = seg;
  b->seg = &s;
  b->small = small;
  b->stream = stream;
  b->free_seq = 0;  // never used by any stream: safe everywhere
  s.head = b;
  ++st_.device_mallocs;
  ++st_.segments;
  note_reserved_change(static_cast<int64_t>(seg));
  note_event({PoolEvent::segment_reserved, seg, 1, st_.reserved_bytes, ""});
  return use_block(b, size);
}

// A new segment of seg bytes for a request of size, unless the limit or the
// device refuses it; the attempt is kept for the out-of-memory message.
bool Pool::reserve(size_t seg, size_t size, void **p) {
  tried_segment_ = seg;
  tried_over_limit_ = cfg_.limit_bytes && st_.reserved_bytes + seg > cfg_.limit_bytes;
  if (tried_over_limit_) return false;
  if (!frozen() && over_gc_bound(seg, size)) collect_garbage(seg, size);
  return mem_.allocate(seg, p);
}

// b is out of the free set; split off the unused tail as a new free block.
Pool::Block *Pool::use_block(Block *b, size_t size) {
  b->allocated = true;  // before inserting the tail, so they do not merge back
  if (b->size - size >= kRound) {
    Block *r = new_block();
    r->addr = b->addr + size;
    r->size = b->size - size;
    r->seg = b->seg;
    r->small = b->small;
    r->stream = b->stream;
    r->free_seq = b->free_seq;
    r->prev = b;
    r->next = b->next;
    if (b->next) b->next->prev = r;
    b->next = r;
    b->size = size;
    insert_free(r);
  }
  return b;
}

// ---------------------------------------------------------------- free

PoolResult Pool::free(void *ptr, uint64_t stream_id, std::string *error) {
  if (!ptr) return PoolResult::ok;
  uintptr_t addr = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lk(mu_);
  Block *b = nullptr;
  if (!live_.erase(addr, &b)) {  // one probe: find and erase together
    if (error) *error = invalid_free_message(addr);
    return PoolResult::invalid;
  }
  st_.allocated_bytes -= b->size;
  st_.requested_bytes -= b->requested;
  st_.total_freed_bytes += b->size;
  --st_.active_blocks;
  ++st_.free_count;
  // Freed on another stream than it was allocated on: the allocation
  // stream's work must finish too, exactly as with record_stream.
  if (b->stream != stream_id) b->used_streams.push_back(b->stream);
  b->allocated = false;
  b->requested = 0;
  b->stream = stream_id;
  b->free_seq = ++seq_;
  for (uint64_t u : b->used_streams) {
    uint64_t e = u == stream_id ? 0 : sync_.record(u);
    if (e) b->events.push_back(e);
  }
  b->used_streams.clear();
  if (!b->events.empty()) {
    b->pending = true;  // not reusable, not even on stream_id, until events complete
    pending_.push_back(b);
    return PoolResult::ok;
  }
  if (!park(b)) insert_free(b);
  return PoolResult::ok;
}

std::string Pool::invalid_free_message(uintptr_t addr) const {
  auto it = segments_.upper_bound(addr);
  if (it != segments_.begin()) {
    const Segment &s = std::prev(it)->second;
    if (addr < s.addr + s.size) {
      for (const Block *b = s.head; b; b = b->next)
        if (b->addr == addr && !b->allocated)
          return "invalid free of " + hex(addr) + ": double free (block is already free)";
      return "invalid free of " + hex(addr) + ": not the start of a live allocation";
    }
  }
  return "invalid free of " + hex(addr) + ": pointer was not allocated by this pool";
}

PoolResult Pool::record_stream(void *ptr, uint64_t stream_id, std::string *error) {
  std::lock_guard<std::mutex> lk(mu_);
  Block **slot = live_.find(reinterpret_cast<uintptr_t>(ptr));
  if (!slot) {
    if (error) *error = "record_stream of " + hex(reinterpret_cast<uintptr_t>(ptr)) +
                        ": not a live allocation of this pool";
    return PoolResult::invalid;
  }
  Block *b = *slot;
  auto &u = b->used_streams;
  if (stream_id != b->stream && std::find(u.begin(), u.end(), stream_id) == u.end())
    u.push_back(stream_id);
  return PoolResult::ok;
}

// Coalesce with free neighbours of the same stream, then bin.
void Pool::insert_free(Block *b) {
  auto mergeable = [b](const Block *x) {
    return x && !x->allocated && !x->pending && !x->parked && x->stream == b->stream;
  };
  if (mergeable(b->prev)) {
    Block *p = b->prev;
    free_.erase(p->where);
    merge_into(p, b);
    b = p;
  }
  if (mergeable(b->next)) {
    free_.erase(b->next->where);
    merge_into(b, b->next);
  }
  b->where = free_.insert(b).first;
}

void Pool::merge_into(Block *left, Block *right) {
  left->size += right->size;
  left->next = right->next;
  if (right->next) right->next->prev = left;
  left->free_seq = std::max(left->free_seq, right->free_seq);  // fence must cover both
  recycle(right);
}

Pool::Block *Pool::new_block() {
  if (spare_blocks_.empty()) {
    block_storage_.emplace_back();
    return &block_storage_.back();
  }
  Block *b = spare_blocks_.back();
  spare_blocks_.pop_back();
  return b;
}

void Pool::recycle(Block *b) {
  // Keep the vectors' capacity: record_stream users do not allocate again.
  b->used_streams.clear();
  b->events.clear();
  b->prev = b->next = nullptr;
  b->allocated = b->pending = b->parked = false;
  b->park_next = nullptr;
  b->requested = 0;
  spare_blocks_.push_back(b);
}

// ---------------------------------------------------------------- fast cache

size_t Pool::park_index(uint64_t stream, size_t size) {
  uint64_t h = (size / kRound) * 0x9E3779B97F4A7C15ull ^ stream * 0xC2B2AE3D27D4EB4Full;
  return size_t(h >> 58);  // top 6 bits: kParkSlots == 64
}

// Would address neighbours a and b be one block once the cache is flushed?
// Binned neighbours never are (insert_free merged them already).
inline bool Pool::coalesces(const Block *a, const Block *b) {
  auto idle = [](const Block *x) { return !x->allocated && !x->pending; };
  return a && b && (a->parked || b->parked) && idle(a) && idle(b) && a->stream == b->stream;
}

// b is free with no pending events. A slot holds one (stream, size); a new
// key evicts the old one (flushes it), since recent sizes are the ones reused.
bool Pool::park(Block *b) {
  if (parked_bytes_ + b->size > kParkBytes) return false;
  ParkSlot &s = park_[park_index(b->stream, b->size)];
  bool same = s.stream == b->stream && s.size == b->size;
  if (same && s.count == kParkDepth) return false;
  b->parked = true;  // first: an evicted neighbour must not merge into b
  if (!same && s.count) flush_slot(s);
  s.stream = b->stream;
  s.size = b->size;
  b->park_next = s.top;
  s.top = b;
  ++s.count;
  ++parked_blocks_;
  parked_bytes_ += b->size;
  return true;
}

// Same stream only: a parked block was freed on `stream`, so reusing it there
// needs no event, exactly like a binned block of that stream.
Pool::Block *Pool::unpark(size_t size, uint64_t stream) {
  ParkSlot &s = park_[park_index(stream, size)];
  if (!s.count || s.size != size || s.stream != stream) return nullptr;
  Block *b = s.top;
  if (coalesces(b->prev, b) || (coalesces(b, b->next) && b->next->parked)) return nullptr;
  s.top = b->park_next;
  --s.count;
  --parked_blocks_;
  parked_bytes_ -= size;
  b->parked = false;
  b->park_next = nullptr;
  b->allocated = true;  // exact size: nothing to split
  return b;
}

void Pool::flush_slot(ParkSlot &s) {
  while (Block *b = s.top) {
    s.top = b->park_next;
    b->parked = false;
    b->park_next = nullptr;
    insert_free(b);
  }
  parked_blocks_ -= s.count;
  parked_bytes_ -= s.count * s.size;
  s.count = 0;
}

void Pool::flush_parked(uint64_t stream) {
  if (!parked_blocks_) return;
  for (ParkSlot &s : park_)
    if (s.count && s.stream == stream) flush_slot(s);
}

void Pool::flush_all_parked() {
  if (!parked_blocks_) return;
  for (ParkSlot &s : park_)
    if (s.count) flush_slot(s);
}

// Size of the block that a flush would make out of b and its neighbours.
size_t Pool::run_size(const Block *b) {
  while (coalesces(b->prev, b)) b = b->prev;
  size_t size = b->size;
  for (; coalesces(b, b->next); b = b->next) size += b->next->size;
  return size;
}

// Each merge a flush would do is one neighbour pair with a parked block in
// it; counted from its left block when that is parked, else from the right.
Pool::ParkedView Pool::parked_view() const {
  ParkedView v;
  for (const ParkSlot &s : park_) {
    for (const Block *b = s.top; b; b = b->park_next) {
      v.merges += coalesces(b, b->next);
      v.merges += coalesces(b->prev, b) && !b->prev->parked;
      v.largest_run = std::max(v.largest_run, run_size(b));
    }
  }
  return v;
}

// ---------------------------------------------------------------- events

// Moves record_stream blocks whose events all completed into the bins.
bool Pool::poll_pending() {
  bool moved = false;
  for (size_t i = 0; i < pending_.size();) {
    Block *b = pending_[i];
    auto &ev = b->events;
    for (size_t j = 0; j < ev.size();) {
      if (!sync_.query(ev[j])) {
        ++j;
        continue;
      }
      sync_.destroy(ev[j]);
      ev[j] = ev.back();
      ev.pop_back();
    }
    if (!ev.empty()) {
      ++i;
      continue;
    }
    pending_[i] = pending_.back();
    pending_.pop_back();
    b->pending = false;
    insert_free(b);
    moved = true;
  }
  return moved;
}

void Pool::flush_pending() {
  for (Block *b : pending_) {
    for (uint64_t e : b->events) {
      sync_.synchronize(e);
      sync_.destroy(e);
    }
    b->events.clear();
  }
  std::vector<Block *> done;
  done.swap(pending_);
  // One at a time: a still-pending neighbour must not be merged before its turn.
  for (Block *b : done) {
    b->pending = false;
    insert_free(b);
  }
}

// Makes st.fence an event recorded after every free up to `needed`.
void Pool::ensure_fence(StreamState &st, uint64_t owner, uint64_t needed) {
  if (needed <= st.safe_seq || (st.fence && st.fence_seq >= needed)) return;
  if (st.fence) sync_.destroy(st.fence);  // the new one completes after it anyway
  st.fence = sync_.record(owner);
  st.fence_seq = seq_;
  if (!st.fence) st.safe_seq = seq_;  // nothing to wait for (CPU)
}

// A block freed on another stream is safe when the owner's fence completed.
bool Pool::is_safe(Block *b) {
  StreamState &st = streams_[b->stream];
  if (b->stream == kSharedStream) {
    auto &g = st.guards;
    for (size_t i = 0; i < g.size();) {
      if (!sync_.query(g[i])) {
        ++i;
        continue;
      }
      sync_.destroy(g[i]);
      g[i] = g.back();
      g.pop_back();
    }
    return g.empty();
  }
  if (b->free_seq <= st.safe_seq) return true;
  // A completed older fence may already cover b: learn that before
  // ensure_fence replaces it with one that has not completed yet.
  poll_fence(st);
  if (b->free_seq <= st.safe_seq) return true;
  ensure_fence(st, b->stream, b->free_seq);  // record lazily: frees never touch events
  poll_fence(st);
  return b->free_seq <= st.safe_seq;
}

void Pool::poll_fence(StreamState &st) {
  if (!st.fence || !sync_.query(st.fence)) return;
  st.safe_seq = st.fence_seq;
  sync_.destroy(st.fence);
  st.fence = 0;
}

// Called after is_safe(b) returned false, so a covering fence exists.
void Pool::wait_for(Block *b, uint64_t stream) {
  StreamState &st = streams_[b->stream];
  if (b->stream == kSharedStream) {
    for (uint64_t g : st.guards) sync_.wait(stream, g);
    return;
  }
  if (st.fence) sync_.wait(stream, st.fence);
}

// Host-waits until block b may be handed back to RawMemory.
void Pool::sync_block(Block *b) {
  StreamState &st = streams_[b->stream];
  if (b->stream == kSharedStream) {
    for (uint64_t g : st.guards) {
      sync_.synchronize(g);
      sync_.destroy(g);
    }
    st.guards.clear();
    return;
  }
  if (b->free_seq <= st.safe_seq) return;  // already known complete: do not wait on a newer fence
  ensure_fence(st, b->stream, b->free_seq);
  if (!st.fence) return;
  sync_.synchronize(st.fence);
  sync_.destroy(st.fence);
  st.fence = 0;
  st.safe_seq = st.fence_seq;
}

void Pool::stream_destroyed(uint64_t stream_id) {
  if (stream_id == kSharedStream) return;
  std::lock_guard<std::mutex> lk(mu_);
  flush_parked(stream_id);  // its parked blocks move with the rest
  std::vector<Block *> moving;
  uint64_t max_seq = 0;
  for (bool small : {false, true}) {
    for (auto it = free_.lower_bound(FreeKey{small, stream_id, 0, 0});
         it != free_.end() && (*it)->small == small && (*it)->stream == stream_id; ++it) {
      moving.push_back(*it);
      max_seq = std::max(max_seq, (*it)->free_seq);
    }
  }
  auto sit = streams_.find(stream_id);
  StreamState st = sit == streams_.end() ? StreamState{} : sit->second;
  if (sit != streams_.end()) streams_.erase(sit);
  // One event on the dying stream guards everything it leaves behind.
  ensure_fence(st, stream_id, max_seq);
  if (st.fence) streams_[kSharedStream].guards.push_back(st.fence);
  // One at a time: blocks not yet moved still carry stream_id, so they
  // cannot be merged (and recycled) before their turn.
  for (Block *b : moving) {
    free_.erase(b->where);
    b->stream = kSharedStream;
    insert_free(b);
  }
}

// ---------------------------------------------------------------- release

void Pool::release_cached(const char *why) {
  flush_all_parked();
  flush_pending();
  PoolEvent released{PoolEvent::segments_released, 0, 0, 0, why};
  for (auto it = segments_.begin(); it != segments_.end();) {
    bool all_free = true;
    for (Block *b = it->second.head; b && all_free; b = b->next) all_free = !b->allocated;
    if (!all_free) {
      ++it;
      continue;
    }
    released.bytes += it->second.size;
    ++released.segments;
    release_segment(it->second);
    it = segments_.erase(it);
  }
  released.reserved = st_.reserved_bytes;
  if (released.segments) note_event(released);
}

bool Pool::over_gc_bound(size_t seg, size_t size) {
  if (cfg_.gc_ratio <= 0 || st_.reserved_bytes + seg <= cfg_.gc_min_bytes) return false;
  gc_high_ = std::max({gc_high_, st_.peak_allocated_bytes, uint64_t(st_.allocated_bytes + size)});
  return double(st_.reserved_bytes + seg) > cfg_.gc_ratio * double(gc_high_);
}

// Segments that are one free block whose events completed, longest free
// first: their sizes are the least likely to be asked for again. Unsafe ones
// are left alone: releasing them would make this allocation wait on the host.
std::vector<Pool::Segment *> Pool::idle_segments() {
  std::vector<std::pair<uint64_t, Segment *>> found;
  for (auto &kv : segments_) {
    Block *b = kv.second.head;
    if (b->next || b->allocated || b->pending || !is_safe(b)) continue;
    found.push_back({b->free_seq, &kv.second});
  }
  std::sort(found.begin(), found.end(),
            [](const auto &x, const auto &y) { return x.first < y.first; });
  std::vector<Segment *> out;
  for (auto &f : found) out.push_back(f.second);
  return out;
}

// Called before a device malloc of `seg` bytes for a request of `size`: the
// search already failed, so no cached block fits it and releasing idle
// segments loses nothing this request could use.
void Pool::collect_garbage(size_t seg, size_t size) {
  flush_all_parked();  // parked pieces of a segment must coalesce to see it idle
  poll_pending();
  PoolEvent released{PoolEvent::segments_released, 0, 0, 0, "by garbage collection"};
  for (Segment *s : idle_segments()) {
    if (!over_gc_bound(seg, size)) break;
    uintptr_t addr = s->addr;
    released.bytes += s->size;
    ++released.segments;
    release_segment(*s);
    segments_.erase(addr);
  }
  released.reserved = st_.reserved_bytes;
  if (released.segments) note_event(released);
}

void Pool::release_segment(Segment &s) {
  for (Block *b = s.head; b;) {
    Block *next = b->next;
    sync_block(b);
    free_.erase(b->where);
    recycle(b);
    b = next;
  }
  mem_.release(reinterpret_cast<void *>(s.addr), s.size);
  ++st_.device_frees;
  --st_.segments;
  note_reserved_change(-static_cast<int64_t>(s.size));
}

void Pool::empty_cache() {
  std::unique_lock<std::mutex> lk(mu_);
  if (frozen()) return;  // its callers refuse during a capture first
  release_cached("by empty_cache");
  fire_queued(lk);
}

void Pool::note_reserved_change(int64_t delta) {
  uint64_t before = st_.reserved_bytes;
  st_.reserved_bytes += static_cast<uint64_t>(delta);
  st_.peak_reserved_bytes = std::max(st_.peak_reserved_bytes, st_.reserved_bytes);
  size_t t = cfg_.threshold_bytes;
  if (delta > 0 && t && before < t && st_.reserved_bytes >= t) threshold_fire_ = st_.reserved_bytes;
}

void Pool::note_event(const PoolEvent &e) {
  if (event_cb_) events_.push_back(e);
}

// Unlocks lk, then runs the callbacks for what was queued under it (the
// owner's callbacks may call back into the pool).
void Pool::fire_queued(std::unique_lock<std::mutex> &lk) {
  size_t reserved = threshold_fire_;
  threshold_fire_ = 0;
  std::function<void(size_t)> threshold_cb;
  if (reserved) threshold_cb = threshold_cb_;
  std::vector<PoolEvent> events;
  events.swap(events_);
  std::function<void(const PoolEvent &)> event_cb;
  if (!events.empty()) event_cb = event_cb_;
  lk.unlock();
  for (const PoolEvent &e : events)
    if (event_cb) event_cb(e);
  if (threshold_cb) threshold_cb(reserved);
}

// ---------------------------------------------------------------- queries

size_t Pool::largest_free() const {
  size_t largest = parked_view().largest_run;
  for (const Block *b : free_) largest = std::max(largest, b->size);
  for (const Block *b : pending_) largest = std::max(largest, b->size);
  return largest;
}

std::string Pool::grow_failure() const {
  if (!tried_segment_) return "the request is too large";
  std::string seg = "a new segment of " + format_bytes(tried_segment_);
  return tried_over_limit_ ? seg + " would exceed the limit"
                           : "the device could not provide " + seg;
}

std::string Pool::oom_message(size_t bytes) const {
  size_t dev_free = 0, dev_total = 0;
  mem_.mem_info(&dev_free, &dev_total);
  std::string limit = cfg_.limit_bytes ? format_bytes(cfg_.limit_bytes) : "none";
  return "out of memory: requested " + format_bytes(bytes) + " (" + grow_failure() +
         "); allocated " +
         format_bytes(st_.allocated_bytes) + ", reserved " + format_bytes(st_.reserved_bytes) +
         ", largest free block " + format_bytes(largest_free()) + ", limit " + limit +
         ", device free " + format_bytes(dev_free) + " of " + format_bytes(dev_total);
}

bool Pool::owns(const void *ptr, size_t *size, uint64_t *stream) const {
  std::lock_guard<std::mutex> lk(mu_);
  Block *const *slot = live_.find(reinterpret_cast<uintptr_t>(ptr));
  if (!slot) return false;
  if (size) *size = (*slot)->size;
  if (stream) *stream = (*slot)->stream;
  return true;
}

PoolStats Pool::stats() const {
  std::lock_guard<std::mutex> lk(mu_);
  return stats_locked();
}

PoolStats Pool::stats_locked() const {
  PoolStats s = st_;
  // Report what a flush of the fast cache would leave, so numbers do not
  // depend on which blocks happen to be parked.
  s.cached_blocks = free_.size() + pending_.size() + parked_blocks_ - parked_view().merges;
  s.cached_free_bytes = s.reserved_bytes - s.allocated_bytes;
  s.largest_free_block = largest_free();
  s.fragmentation = s.cached_free_bytes
                        ? 1.0 - double(s.largest_free_block) / double(s.cached_free_bytes)
                        : 0.0;
  return s;
}

void Pool::reset_peaks() {
  std::lock_guard<std::mutex> lk(mu_);
  gc_high_ = std::max(gc_high_, st_.peak_allocated_bytes);  // gc keeps its reference
  st_.peak_allocated_bytes = st_.allocated_bytes;
  st_.peak_reserved_bytes = st_.reserved_bytes;
  st_.peak_requested_bytes = st_.requested_bytes;
}

std::vector<SegmentInfo> Pool::snapshot(PoolStats *stats) const {
  std::lock_guard<std::mutex> lk(mu_);
  if (stats) *stats = stats_locked();
  std::vector<SegmentInfo> out;
  out.reserve(segments_.size());
  for (const auto &kv : segments_) {
    const Segment &s = kv.second;
    SegmentInfo info{s.addr, s.size, s.stream, {}};
    for (const Block *b = s.head; b; b = b->next) {
      if (coalesces(b->prev, b)) {  // shown merged, as after a flush (see stats)
        info.blocks.back().size += b->size;
        continue;
      }
      info.blocks.push_back({b->addr, b->size, b->requested, b->allocated, b->stream});
    }
    out.push_back(std::move(info));
  }
  return out;
}

void Pool::set_limit(size_t bytes) {
  std::unique_lock<std::mutex> lk(mu_);
  cfg_.limit_bytes = bytes;
  if (bytes && st_.reserved_bytes > bytes && !frozen()) release_cached("as the limit was lowered");
  fire_queued(lk);
}

size_t Pool::limit() const {
  std::lock_guard<std::mutex> lk(mu_);
  return cfg_.limit_bytes;
}

void Pool::set_oom_callback(std::function<void(size_t, const std::string &)> cb) {
  std::lock_guard<std::mutex> lk(mu_);
  oom_cb_ = std::move(cb);
}

void Pool::set_threshold_callback(size_t bytes, std::function<void(size_t)> cb) {
  std::lock_guard<std::mutex> lk(mu_);
  cfg_.threshold_bytes = bytes;
  threshold_cb_ = std::move(cb);
}

void Pool::set_event_callback(std::function<void(const PoolEvent &)> cb) {
  std::lock_guard<std::mutex> lk(mu_);
  event_cb_ = std::move(cb);
  if (!event_cb_) events_.clear();
}

void Pool::set_freeze_flag(const std::atomic<int> *flag) {
  std::lock_guard<std::mutex> lk(mu_);
  freeze_ = flag;
}

// ---------------------------------------------------------------- graph pools

GraphPools::~GraphPools() {
  std::lock_guard<std::mutex> lk(mu_);
  pools_.clear();  // the context is going: its pools release their segments
}

GraphPool *GraphPools::create() {
  std::lock_guard<std::mutex> lk(mu_);
  collect_locked();
  pools_.push_back(std::make_unique<GraphPool>(next_id_++, mem_, sync_));
  GraphPool *p = pools_.back().get();
  p->pool.set_freeze_flag(freeze_);
  count_.store(pools_.size(), std::memory_order_release);
  return p;
}

void GraphPools::retain(GraphPool *p) {
  std::lock_guard<std::mutex> lk(mu_);
  ++p->refs;
}

void GraphPools::release(GraphPool *p) {
  std::lock_guard<std::mutex> lk(mu_);
  --p->refs;
  collect_locked();
}

bool GraphPools::begin_capture(GraphPool *p) {
  std::lock_guard<std::mutex> lk(mu_);
  if (p->capturing) return false;
  p->capturing = true;
  ++p->refs;
  return true;
}

void GraphPools::end_capture(GraphPool *p) {
  std::lock_guard<std::mutex> lk(mu_);
  p->capturing = false;
  --p->refs;
  collect_locked();
}

bool GraphPools::free(void *ptr, uint64_t stream_id, PoolResult *result, std::string *error) {
  std::lock_guard<std::mutex> lk(mu_);
  for (auto &p : pools_) {
    if (!p->pool.owns(ptr)) continue;
    *result = p->pool.free(ptr, stream_id, error);
    collect_locked();
    return true;
  }
  return false;
}

bool GraphPools::record_stream(void *ptr, uint64_t stream_id, PoolResult *result,
                               std::string *error) {
  std::lock_guard<std::mutex> lk(mu_);
  for (auto &p : pools_) {
    if (!p->pool.owns(ptr)) continue;
    *result = p->pool.record_stream(ptr, stream_id, error);
    return true;
  }
  return false;
}

bool GraphPools::owns(const void *ptr) const {
  std::lock_guard<std::mutex> lk(mu_);
  for (auto &p : pools_)
    if (p->pool.owns(ptr)) return true;
  return false;
}

void GraphPools::for_each(const std::function<void(const GraphPool &)> &fn) const {
  std::lock_guard<std::mutex> lk(mu_);
  for (auto &p : pools_) fn(*p);
}

void GraphPools::collect() {
  std::lock_guard<std::mutex> lk(mu_);
  collect_locked();
}

bool GraphPools::dead(const GraphPool &p) const {
  return p.refs == 0 && p.pool.stats().active_blocks == 0;
}

void GraphPools::collect_locked() {
  if (freeze_ && freeze_->load(std::memory_order_acquire) > 0) return;
  pools_.erase(std::remove_if(pools_.begin(), pools_.end(),
                              [this](const std::unique_ptr<GraphPool> &p) { return dead(*p); }),
               pools_.end());
  count_.store(pools_.size(), std::memory_order_release);
}

}  // namespace ek
