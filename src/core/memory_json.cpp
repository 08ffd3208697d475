// The pool's snapshot and statistics as JSON (ek_memory_write_snapshot_json and ek_memory_get_snapshot_json), into
// a file replaced atomically or into the caller's buffer. The format is
// documented in ek.h; scripts/plot_memory.py reads it.
#include <cmath>
#include <cstdio>

#include "core/internal.hpp"

namespace ek {
namespace {

// Every integer field of ek_memory_stats, in declaration order;
// fragmentation, the one double, comes last.
#define EK_MEMORY_STATS_COUNTERS(X)                                                   \
  X(allocated_bytes) X(reserved_bytes) X(requested_bytes) X(peak_allocated_bytes)     \
  X(peak_reserved_bytes) X(peak_requested_bytes) X(total_allocated_bytes)             \
  X(total_freed_bytes) X(active_blocks) X(cached_blocks) X(segments) X(alloc_count)   \
  X(free_count) X(cache_hits) X(device_mallocs) X(device_frees) X(retries)            \
  X(oom_count) X(largest_free_block) X(cached_free_bytes) X(limit_bytes)
#define EK_COUNT_FIELD_(name) +1
// A field added to ek_memory_stats must be added to the list above too.
// (struct_size, first, is not written to the JSON.)
static_assert(sizeof(ek_memory_stats) ==
                  sizeof(size_t) + (0 EK_MEMORY_STATS_COUNTERS(EK_COUNT_FIELD_)) * sizeof(uint64_t) +
                      sizeof(double),
              "EK_MEMORY_STATS_COUNTERS does not list every field of ek_memory_stats");
#undef EK_COUNT_FIELD_

// "name": value, for integers (exact, in decimal).
void append_field(std::string &out, const char *name, uint64_t value) {
  out += '"';
  out += name;
  out += "\": ";
  out += std::to_string(value);
}

void append_device(std::string &out, const ek_device_info &info) {
  out += "  \"device\": {\"type\": ";
  out += info.type == EK_CUDA ? "\"cuda\"" : "\"cpu\"";
  out += ", \"index\": " + std::to_string(info.index) + ", \"name\": ";
  append_json_string(out, info.name);
  out += "},\n";
}

void append_stats(std::string &out, const ek_memory_stats &s) {
  out += "  \"stats\": {\n";
#define EK_APPEND_COUNTER_(name) \
  out += "    ";                 \
  append_field(out, #name, s.name); \
  out += ",\n";
  EK_MEMORY_STATS_COUNTERS(EK_APPEND_COUNTER_)
#undef EK_APPEND_COUNTER_
  // JSON has no NaN or infinity; the ratio is always finite, in [0, 1].
  char fragmentation[32];
  std::snprintf(fragmentation, sizeof fragmentation, "%.17g",
                std::isfinite(s.fragmentation) ? s.fragmentation : 0.0);
  out += "    \"fragmentation\": ";
  out += fragmentation;
  out += "\n  },\n";
}

void append_block(std::string &out, const BlockInfo &b) {
  out += "      {";
  append_field(out, "address", b.address);
  out += ", ";
  append_field(out, "size", b.size);
  out += ", ";
  append_field(out, "requested", b.allocated ? b.requested : 0);
  out += b.allocated ? ", \"allocated\": true, " : ", \"allocated\": false, ";
  append_field(out, "stream_id", b.stream_id);
  out += "}";
}

void append_segment(std::string &out, const SegmentInfo &seg) {
  out += "    {";
  append_field(out, "address", seg.address);
  out += ", ";
  append_field(out, "size", seg.size);
  out += ", ";
  append_field(out, "stream_id", seg.stream_id);
  out += ", \"blocks\": [\n";
  for (size_t i = 0; i < seg.blocks.size(); ++i) {
    append_block(out, seg.blocks[i]);
    out += i + 1 < seg.blocks.size() ? ",\n" : "\n";
  }
  out += "    ]}";
}

// "graph_pools": [{"id": 1, "stats": {...}, "segments": [...]}, ...], last.
void append_graph_pools(std::string &out, const GraphPools &pools) {
  out += "  \"graph_pools\": [";
  bool first = true;
  pools.for_each([&](const GraphPool &g) {
    PoolStats st;
    std::vector<SegmentInfo> segments = g.pool.snapshot(&st);
    std::string stats;
    append_stats(stats, public_stats(st, 0));
    out += first ? "\n" : ",\n";
    first = false;
    out += "  {\"id\": " + std::to_string(g.id) + ",\n" + stats + "  \"segments\": [";
    for (size_t i = 0; i < segments.size(); ++i) {
      out += i ? ",\n" : "\n";
      append_segment(out, segments[i]);
    }
    out += "]}";
  });
  out += first ? "]\n" : "\n  ]\n";
}

ek_status snapshot_json(ek_context ctx, std::string *out) {
  ek_device_info info{};
  info.struct_size = sizeof info;
  EK_FORWARD(ek_device_get_info(ctx->device, &info));
  PoolStats pool_stats;
  std::vector<SegmentInfo> segments = ctx->pool->snapshot(&pool_stats);
  std::string &text = *out;
  text = "{\n  \"version\": 1,\n";
  append_device(text, info);
  append_stats(text, public_stats(pool_stats, ctx->pool->limit()));
  text += "  \"segments\": [";
  for (size_t i = 0; i < segments.size(); ++i) {
    text += i ? ",\n" : "\n";
    append_segment(text, segments[i]);
  }
  text += segments.empty() ? "],\n" : "\n  ],\n";
  append_graph_pools(text, *ctx->graph_pools);
  text += "}\n";
  return EK_SUCCESS;
}

}  // namespace
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_memory_write_snapshot_json(ek_context ctx, const char *path) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(path);
  std::string text;
  EK_FORWARD(snapshot_json(ctx, &text));
  return write_file_replacing(path, text);
}

EK_API ek_status ek_memory_get_snapshot_json(ek_context ctx, char *buffer, size_t capacity,
                                             size_t *length) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(length);
  EK_CHECK(buffer || capacity == 0, EK_ERROR_NULL_POINTER, "buffer is NULL but capacity is %zu",
           capacity);
  std::string text;
  EK_FORWARD(snapshot_json(ctx, &text));
  copy_text_out(text, buffer, capacity, length);
  return EK_SUCCESS;
}

}  // extern "C"
