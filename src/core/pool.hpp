// Caching memory pool: the block manager behind libek's device allocator.
// Plain C++17 on purpose (no CUDA, no ek.h) so that splitting, coalescing,
// stream reuse rules, statistics and the out-of-memory path run in CI against
// a simulated device. Design: shared/ALLOCATOR.md.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace ek {

// Where raw memory comes from (cudaMalloc, host malloc, a simulated device).
struct RawMemory {
  virtual ~RawMemory() = default;
  virtual bool allocate(size_t bytes, void **ptr) = 0;  // false when out of memory
  virtual void release(void *ptr, size_t bytes) = 0;
  virtual void mem_info(size_t *free_bytes, size_t *total_bytes) = 0;  // for messages
};

// "Has this stream's work finished": a CUDA event on GPU, always done on CPU.
struct StreamSync {
  virtual ~StreamSync() = default;
  virtual uint64_t record(uint64_t stream_id) = 0;  // event token, 0 = nothing to wait for
  virtual bool query(uint64_t event) = 0;           // true when completed
  virtual void wait(uint64_t stream_id, uint64_t event) = 0;  // GPU-side wait, no host sync
  virtual void synchronize(uint64_t event) = 0;                // host waits
  virtual void destroy(uint64_t event) = 0;
};

struct PoolConfig {
  size_t limit_bytes = 0;             // 0 = no limit; checked against reserved bytes
  size_t max_split_size = SIZE_MAX;   // cached blocks above this are never split
  size_t threshold_bytes = 0;         // 0 = off; see set_threshold_callback
  // When a stream's own bins are empty, take another stream's block by making
  // the allocating stream wait on its event (true), or only take blocks whose
  // events already completed and grow otherwise (false: never serializes streams).
  bool cross_stream_wait = true;
  // Garbage collection before growth: when reserved + the new segment would
  // exceed gc_ratio x the high-water mark of allocated bytes (this request
  // included), fully free cached segments are released (oldest free first)
  // until it would not. Varying request sizes otherwise leave exact-size
  // segments cached that no later request fits. The high-water mark, not the
  // current allocated bytes, so that the cache a training step rebuilds every
  // iteration is not released at the start of each one. Only segments whose
  // events completed are released (no host wait on the allocation path).
  // 0 = off.
  double gc_ratio = 1.25;
  // No collection while reserved + the new segment stays at or below this:
  // a small cache costs little and keeps its segments for reuse.
  size_t gc_min_bytes = size_t(1) << 30;
};

struct PoolStats {
  uint64_t allocated_bytes = 0, reserved_bytes = 0, requested_bytes = 0, active_blocks = 0,
           cached_blocks = 0, segments = 0, peak_allocated_bytes = 0, peak_reserved_bytes = 0,
           peak_requested_bytes = 0, total_allocated_bytes = 0, total_freed_bytes = 0,
           alloc_count = 0, free_count = 0, cache_hits = 0, device_mallocs = 0, device_frees = 0,
           retries = 0, oom_count = 0, largest_free_block = 0, cached_free_bytes = 0;
  double fragmentation = 0;  // 1 - largest_free_block / cached_free_bytes, 0 when nothing cached
};

struct BlockInfo {
  uintptr_t address;
  size_t size, requested;  // requested is 0 for free blocks
  bool allocated;
  uint64_t stream_id;
};
struct SegmentInfo {
  uintptr_t address;
  size_t size;
  uint64_t stream_id;  // stream that created the segment
  std::vector<BlockInfo> blocks;  // in address order, covering the segment exactly
};

enum class PoolResult { ok, out_of_memory, invalid };

// Memory the pool took from or gave back to the device, told to its owner
// (set_event_callback) for logging, with the pool unlocked, after the call
// that caused it.
struct PoolEvent {
  enum Kind { segment_reserved, segments_released } kind;
  uint64_t bytes;     // the new segment's size, or the released segments' total
  uint64_t segments;  // 1, or how many were released
  uint64_t reserved;  // reserved bytes after the change
  const char *why;    // static text: what released them; "" for segment_reserved
};

// Stream id reserved for the shared list that destroyed streams' blocks join.
constexpr uint64_t kSharedStream = UINT64_MAX;

constexpr size_t kRound = 512;                   // every block is a multiple of this
constexpr size_t kSmallRequest = 1 << 20;        // <= this: from 2 MiB segments
constexpr size_t kSmallSegment = 2 << 20;
constexpr size_t kMediumRequest = 10 << 20;      // <= this: from 20 MiB segments
constexpr size_t kMediumSegment = 20 << 20;
constexpr size_t kLargeRound = 2 << 20;          // larger requests: own segment
constexpr size_t kOversizeSlack = 20 << 20;      // an unsplittable block may waste this much

std::string format_bytes(uint64_t bytes);  // "512 B", "1.50 MiB", "80.00 GiB"

namespace detail {
// Recycles fixed-size nodes so that std::set / std::unordered_map inserts on
// the hot path do not reach operator new once warmed up. Not thread-safe:
// only used under the pool mutex.
class NodeArena {
 public:
  static constexpr size_t kSlot = 64;
  NodeArena() = default;
  NodeArena(const NodeArena &) = delete;
  NodeArena &operator=(const NodeArena &) = delete;
  ~NodeArena();
  void *get(size_t bytes);
  void put(void *p, size_t bytes);

 private:
  struct Slot { Slot *next; };
  Slot *free_ = nullptr;
  std::vector<void *> chunks_;
};

template <class T>
struct ArenaAlloc {
  using value_type = T;
  NodeArena *arena;
  explicit ArenaAlloc(NodeArena *a) : arena(a) {}
  template <class U>
  ArenaAlloc(const ArenaAlloc<U> &o) : arena(o.arena) {}
  T *allocate(size_t n) { return static_cast<T *>(arena->get(n * sizeof(T))); }
  void deallocate(T *p, size_t n) { arena->put(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const ArenaAlloc<U> &o) const { return arena == o.arena; }
  template <class U>
  bool operator!=(const ArenaAlloc<U> &o) const { return arena != o.arena; }
};

// Live allocations by address: open addressing, linear probing, power-of-two
// capacity and a multiplicative hash, so lookups cost no integer division
// and inserts no allocation (until the table doubles).
template <class V>
class AddressTable {
 public:
  explicit AddressTable(size_t capacity = 4096) { rehash(capacity); }
  V *find(uintptr_t key);
  const V *find(uintptr_t key) const;
  void insert(uintptr_t key, V value);  // key must be absent and nonzero
  bool erase(uintptr_t key, V *value = nullptr);  // value: what was stored
  size_t size() const { return size_; }

 private:
  struct Slot { uintptr_t key; V value; };  // key 0 = empty
  size_t home(uintptr_t key) const { return size_t((key >> 9) * 0x9E3779B97F4A7C15ull >> shift_); }
  void rehash(size_t capacity);
  std::vector<Slot> slots_;
  size_t mask_ = 0, size_ = 0;
  unsigned shift_ = 0;
};

template <class V>
void AddressTable<V>::rehash(size_t capacity) {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(capacity, Slot{0, V()});
  mask_ = capacity - 1;
  shift_ = 64;
  for (size_t c = capacity; c > 1; c >>= 1) --shift_;
  size_ = 0;
  for (const Slot &s : old)
    if (s.key) insert(s.key, s.value);
}

template <class V>
const V *AddressTable<V>::find(uintptr_t key) const {
  for (size_t i = home(key);; i = (i + 1) & mask_) {
    if (slots_[i].key == key) return &slots_[i].value;
    if (!slots_[i].key) return nullptr;
  }
}

template <class V>
V *AddressTable<V>::find(uintptr_t key) {
  return const_cast<V *>(static_cast<const AddressTable *>(this)->find(key));
}

template <class V>
void AddressTable<V>::insert(uintptr_t key, V value) {
  if (2 * (size_ + 1) > slots_.size()) rehash(2 * slots_.size());  // load <= 1/2
  size_t i = home(key);
  while (slots_[i].key) i = (i + 1) & mask_;
  slots_[i] = Slot{key, value};
  ++size_;
}

// Backward-shift deletion keeps probe chains intact without tombstones.
template <class V>
bool AddressTable<V>::erase(uintptr_t key, V *value) {
  size_t i = home(key);
  while (slots_[i].key != key) {
    if (!slots_[i].key) return false;
    i = (i + 1) & mask_;
  }
  if (value) *value = slots_[i].value;
  for (size_t j = (i + 1) & mask_; slots_[j].key; j = (j + 1) & mask_) {
    size_t h = home(slots_[j].key);
    // Move j into the hole at i unless its home lies cyclically in (i, j].
    bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
    if (stays) continue;
    slots_[i] = slots_[j];
    i = j;
  }
  slots_[i].key = 0;
  --size_;
  return true;
}
}  // namespace detail

class Pool {
 public:
  Pool(RawMemory &mem, StreamSync &sync, PoolConfig cfg = {});
  ~Pool();  // releases every segment back to RawMemory
  Pool(const Pool &) = delete;
  Pool &operator=(const Pool &) = delete;

  // bytes == 0 gives *ptr = nullptr and ok; free(nullptr) is ok too.
  PoolResult allocate(size_t bytes, uint64_t stream_id, void **ptr, std::string *error);
  // The block becomes reusable at once on stream_id, on other streams after an
  // event on stream_id (and on record_stream streams) completed.
  PoolResult free(void *ptr, uint64_t stream_id, std::string *error);
  PoolResult record_stream(void *ptr, uint64_t stream_id, std::string *error);
  // Live allocation lookup by base pointer; size is the usable (rounded) size.
  bool owns(const void *ptr, size_t *size = nullptr, uint64_t *stream = nullptr) const;
  void empty_cache();  // release every fully free segment (waits for pending events)
  // Call before the stream is really destroyed: an event is recorded on it.
  void stream_destroyed(uint64_t stream_id);
  PoolStats stats() const;
  void reset_peaks();
  // stats (may be nullptr) receives the statistics of the same moment.
  std::vector<SegmentInfo> snapshot(PoolStats *stats = nullptr) const;
  void set_limit(size_t bytes);  // releases cached segments if reserved is above it
  size_t limit() const;
  // cause: why the last attempt to grow failed, as in the error message
  // ("a new segment of 20.00 MiB would exceed the limit").
  void set_oom_callback(std::function<void(size_t requested, const std::string &cause)> cb);
  void set_threshold_callback(size_t bytes, std::function<void(size_t reserved)> cb);
  // nullptr: no events are even recorded (the default).
  void set_event_callback(std::function<void(const PoolEvent &)> cb);
  // While *flag > 0 (a CUDA graph capture is underway, and CUDA forbids event
  // queries and host waits then), the pool neither queries, waits on nor
  // synchronizes an event: a stream reuses only blocks freed on itself (and
  // those never used elsewhere), grows otherwise, and neither collects
  // garbage nor releases its cache. nullptr (the default): never frozen.
  void set_freeze_flag(const std::atomic<int> *flag);

 private:
  struct Segment;
  struct Block;
  struct Segment {
    uintptr_t addr;
    size_t size;
    uint64_t stream;
    bool small;
    Block *head;
  };
  // Per stream "fence": one lazily recorded event covers every block freed on
  // the stream before it, so frees touch no event API.
  struct StreamState {
    uint64_t fence = 0, fence_seq = 0, safe_seq = 0;
    std::vector<uint64_t> guards;  // shared list only: destroyed streams' events
  };
  struct FreeKey {
    bool small;
    uint64_t stream;
    size_t size;
    uintptr_t addr;
  };
  struct FreeOrder {
    using is_transparent = void;
    static FreeKey key(const Block *b) { return {b->small, b->stream, b->size, b->addr}; }
    static const FreeKey &key(const FreeKey &k) { return k; }
    template <class A, class B>
    bool operator()(const A &a, const B &b) const { return less(key(a), key(b)); }
    static bool less(const FreeKey &a, const FreeKey &b);
  };
  using FreeSet = std::set<Block *, FreeOrder, detail::ArenaAlloc<Block *>>;
  using LiveMap = detail::AddressTable<Block *>;
  struct Block {
    uintptr_t addr = 0;
    size_t size = 0, requested = 0;
    Segment *seg = nullptr;
    Block *prev = nullptr, *next = nullptr;  // address neighbours in the segment
    uint64_t stream = 0;     // allocation stream while live, owner stream while free
    uint64_t free_seq = 0;   // global free counter value when it became free
    bool allocated = false, pending = false;  // pending: waiting on record_stream events
    bool small = false;      // from a 2 MiB segment (small pool)
    bool parked = false;     // free, in park_ (not in free_, not coalesced yet)
    Block *park_next = nullptr;  // LIFO link inside its park slot
    std::vector<uint64_t> used_streams;  // record_stream streams (rarely used)
    std::vector<uint64_t> events;        // pending events after free
    FreeSet::iterator where;  // position in free_ while binned: O(1) erase
  };
  struct Candidate { Block *block = nullptr; bool safe = false; };
  // Fast cache: blocks freed with nothing to wait for are parked, uncoalesced,
  // by (stream, exact size), so a same-size reallocation on that stream skips
  // the split on allocate and the merge on free (4 ordered-set operations).
  // Any other allocation on the stream flushes its parked blocks into free_
  // first, so best fit, growth and the other-stream rules see exactly the
  // bins they would see without the cache.
  struct ParkSlot {
    uint64_t stream = 0;
    size_t size = 0;
    Block *top = nullptr;  // most recently freed first (still warm in caches)
    size_t count = 0;
  };
  static constexpr size_t kParkSlots = 64;     // direct mapped: O(1), no allocation
  static constexpr size_t kParkDepth = 8;      // blocks per (stream, size)
  // Bounds the memory that sits uncoalesced and the work one flush does.
  static constexpr size_t kParkBytes = size_t(512) << 20;
  // What a flush would merge, for queries that must not change state.
  struct ParkedView { size_t merges = 0, largest_run = 0; };

  // allocation steps
  Block *try_allocate(size_t size, uint64_t stream);
  Block *search(size_t size, uint64_t stream);
  FreeSet::iterator best_fit(bool small, uint64_t stream, size_t size);
  Block *take_from_other_streams(size_t size, uint64_t stream);
  Candidate candidate_on(bool small, uint64_t owner, size_t size);
  Block *grow(size_t size, uint64_t stream, bool exact_fallback);
  bool reserve(size_t seg, size_t size, void **p);
  Block *use_block(Block *b, size_t size);
  bool usable(const Block *b, size_t size) const;
  // fast cache
  static size_t park_index(uint64_t stream, size_t size);
  bool park(Block *b);
  Block *unpark(size_t size, uint64_t stream);
  void flush_slot(ParkSlot &s);
  void flush_parked(uint64_t stream);
  void flush_all_parked();
  static bool coalesces(const Block *a, const Block *b);
  static size_t run_size(const Block *b);
  ParkedView parked_view() const;
  // free-list maintenance
  void insert_free(Block *b);
  void merge_into(Block *left, Block *right);
  Block *new_block();
  void recycle(Block *b);
  // events
  bool poll_pending();
  void flush_pending();
  void ensure_fence(StreamState &st, uint64_t owner, uint64_t needed);
  bool is_safe(Block *b);
  void poll_fence(StreamState &st);
  void wait_for(Block *b, uint64_t stream);
  void sync_block(Block *b);
  // releasing
  void release_cached(const char *why);
  void collect_garbage(size_t seg, size_t size);
  std::vector<Segment *> idle_segments();
  bool over_gc_bound(size_t seg, size_t size);
  void release_segment(Segment &seg);
  void note_reserved_change(int64_t delta);
  void note_event(const PoolEvent &e);
  void fire_queued(std::unique_lock<std::mutex> &lk);
  // messages and queries
  size_t largest_free() const;
  PoolStats stats_locked() const;
  std::string grow_failure() const;
  std::string oom_message(size_t bytes) const;
  std::string invalid_free_message(uintptr_t addr) const;

  RawMemory &mem_;
  StreamSync &sync_;
  PoolConfig cfg_;
  mutable std::mutex mu_;
  detail::NodeArena arena_;  // declared before the containers that use it
  FreeSet free_;
  LiveMap live_;
  std::map<uintptr_t, Segment> segments_;
  std::unordered_map<uint64_t, StreamState> streams_;
  std::vector<Block *> pending_;
  std::deque<Block> block_storage_;
  std::vector<Block *> spare_blocks_;
  ParkSlot park_[kParkSlots];
  size_t parked_blocks_ = 0, parked_bytes_ = 0;
  uint64_t seq_ = 0;
  PoolStats st_;
  std::function<void(size_t, const std::string &)> oom_cb_;
  std::function<void(size_t)> threshold_cb_;
  size_t threshold_fire_ = 0;  // reserved value to report, 0 = nothing to fire
  std::function<void(const PoolEvent &)> event_cb_;
  std::vector<PoolEvent> events_;  // recorded under the lock, told by fire_queued
  // The segment the last reserve() tried, and whether the limit (not the device)
  // refused it, for the out-of-memory message. 0: none was tried.
  size_t tried_segment_ = 0;
  bool tried_over_limit_ = false;
  uint64_t gc_high_ = 0;  // allocated high-water mark for gc_ratio; survives reset_peaks
  const std::atomic<int> *freeze_ = nullptr;
  bool frozen() const { return freeze_ && freeze_->load(std::memory_order_acquire) > 0; }
};

// A graph-private pool (ek_graph_pool): a Pool whose blocks serve only graph
// captures. It is referenced by its handle, by each graph captured into it
// and by each capture underway, and lives on while blocks allocated from it
// do (tensors made during a capture outlive the graph).
struct GraphPool {
  GraphPool(uint64_t id, RawMemory &mem, StreamSync &sync) : id(id), pool(mem, sync) {}
  const uint64_t id;  // 1, 2, ... per GraphPools: names the pool in snapshots
  Pool pool;
  int refs = 1;            // guarded by GraphPools' mutex
  bool capturing = false;  // one capture at a time: its stream order is the pool's
};

// The graph pools of one context. A pool that no reference nor allocated
// block keeps is destroyed (its segments go back to RawMemory), unless the
// freeze flag is up: releasing device memory during a capture is illegal, so
// it waits for the next call after the captures ended.
class GraphPools {
 public:
  GraphPools(RawMemory &mem, StreamSync &sync, const std::atomic<int> *freeze)
      : mem_(mem), sync_(sync), freeze_(freeze) {}
  ~GraphPools();
  GraphPools(const GraphPools &) = delete;
  GraphPools &operator=(const GraphPools &) = delete;
  GraphPool *create();  // one reference, for the caller
  void retain(GraphPool *p);
  void release(GraphPool *p);
  // false when p is capturing already (the second capture would interleave
  // its stream order with the first).
  bool begin_capture(GraphPool *p);
  void end_capture(GraphPool *p);
  // When a graph pool owns ptr: frees it there, *result says how, true.
  bool free(void *ptr, uint64_t stream_id, PoolResult *result, std::string *error);
  // As free: record_stream of a block of a graph pool (false: none owns ptr).
  bool record_stream(void *ptr, uint64_t stream_id, PoolResult *result, std::string *error);
  bool owns(const void *ptr) const;
  // Live pools, unreferenced ones waiting for their blocks included.
  size_t count() const { return count_.load(std::memory_order_acquire); }
  // Calls fn(pool) for each live pool, in creation order, under the lock.
  void for_each(const std::function<void(const GraphPool &)> &fn) const;
  void collect();  // destroys the pools no one keeps (when not frozen)

 private:
  bool dead(const GraphPool &p) const;
  void collect_locked();
  RawMemory &mem_;
  StreamSync &sync_;
  const std::atomic<int> *freeze_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<GraphPool>> pools_;
  std::atomic<size_t> count_{0};
  uint64_t next_id_ = 1;
};

}  // namespace ek
