// CPU sorting and searching: every row's elements become (key, index) pairs
// ordered by the shared keys, so results match CUDA's radix sorts (which are
// stable: the CPU's sort is too, whatever the plan asks).
#include "cpu/sort.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace ek {
namespace cpu {
namespace {

struct Item {
  uint64_t key;
  int64_t index;
};

// Row r's items, keys complemented when larger should come first.
std::vector<Item> row_items(const void *in, int dtype, int64_t n, int64_t r, bool reverse) {
  const size_t es = dtype_size(dtype);
  const char *row = static_cast<const char *>(in) + r * n * es;
  std::vector<Item> items(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t k = sortkey::key_of(row + i * es, dtype);
    items[i] = {reverse ? ~k : k, i};
  }
  return items;
}

bool by_key(const Item &a, const Item &b) { return a.key < b.key; }
bool by_key_then_index(const Item &a, const Item &b) {
  return a.key < b.key || (a.key == b.key && a.index < b.index);
}

// values[r, j] = in[r, items[j].index], indices[r, j] = items[j].index.
void write_row(const void *in, int dtype, int64_t n, int64_t r, const std::vector<Item> &items,
               int64_t count, void *values, int64_t *indices) {
  const size_t es = dtype_size(dtype);
  const char *row = static_cast<const char *>(in) + r * n * es;
  for (int64_t j = 0; j < count; ++j) {
    if (values)
      std::memcpy(static_cast<char *>(values) + (r * count + j) * es, row + items[j].index * es, es);
    if (indices) indices[r * count + j] = items[j].index;
  }
}

}  // namespace

int sort(const SortPlan &p) {
  if (!dtype_size(p.dtype) || p.rows < 0 || p.n < 0 || (!p.values && !p.indices)) return 1;
  for (int64_t r = 0; r < p.rows; ++r) {
    std::vector<Item> items = row_items(p.in, p.dtype, p.n, r, p.descending);
    std::stable_sort(items.begin(), items.end(), by_key);
    write_row(p.in, p.dtype, p.n, r, items, p.n, p.values, p.indices);
  }
  return 0;
}

// Ties at the k-th place take the lowest indices, so the result is one order.
int topk(const TopkPlan &p) {
  if (!dtype_size(p.dtype) || p.k < 0 || p.k > p.n || (!p.values && !p.indices)) return 1;
  for (int64_t r = 0; r < p.rows; ++r) {
    std::vector<Item> items = row_items(p.in, p.dtype, p.n, r, p.largest);
    auto kth = items.begin() + p.k;
    if (p.sorted) std::partial_sort(items.begin(), kth, items.end(), by_key_then_index);
    else std::nth_element(items.begin(), kth, items.end(), by_key_then_index);
    write_row(p.in, p.dtype, p.n, r, items, p.k, p.values, p.indices);
  }
  return 0;
}

int searchsorted(const SearchPlan &p) {
  if (!dtype_size(p.dtype) || (p.out_dtype != kI64 && p.out_dtype != kI32)) return 1;
  const size_t es = dtype_size(p.dtype);
  std::vector<uint64_t> keys(static_cast<size_t>(p.m));
  for (int64_t r = 0; r < p.rows; ++r) {
    if (r == 0 || p.seq_rows > 1) {
      const char *seq = static_cast<const char *>(p.seq) + (p.seq_rows > 1 ? r : 0) * p.m * es;
      for (int64_t i = 0; i < p.m; ++i) keys[i] = sortkey::key_of(seq + i * es, p.dtype);
    }
    for (int64_t j = 0; j < p.v; ++j) {
      const int64_t at = r * p.v + j;
      const uint64_t k = sortkey::key_of(static_cast<const char *>(p.values) + at * es, p.dtype);
      const auto pos = (p.right ? std::upper_bound(keys.begin(), keys.end(), k)
                                : std::lower_bound(keys.begin(), keys.end(), k)) - keys.begin();
      if (p.out_dtype == kI64) static_cast<int64_t *>(p.out)[at] = pos;
      else static_cast<int32_t *>(p.out)[at] = static_cast<int32_t>(pos);
    }
  }
  return 0;
}

namespace {
// Whether sorted element i starts a new distinct value.
bool starts_group(const UniquePlan &p, int64_t i) {
  if (i == 0) return true;
  const size_t es = dtype_size(p.dtype);
  const char *s = static_cast<const char *>(p.sorted);
  const uint64_t k = sortkey::key_of(s + i * es, p.dtype);
  return k != sortkey::key_of(s + (i - 1) * es, p.dtype) || sortkey::key_is_nan(k, p.dtype);
}
}  // namespace

int64_t unique_count(const UniquePlan &p) {
  int64_t count = 0;
  for (int64_t i = 0; i < p.n; ++i) count += starts_group(p, i);
  return count;
}

int unique_write(const UniquePlan &p) {
  if (!dtype_size(p.dtype)) return 1;
  const size_t es = dtype_size(p.dtype);
  int64_t g = -1;
  for (int64_t i = 0; i < p.n; ++i) {
    if (starts_group(p, i)) {
      ++g;
      if (p.values)
        std::memcpy(static_cast<char *>(p.values) + g * es,
                    static_cast<const char *>(p.sorted) + i * es, es);
      if (p.counts) p.counts[g] = 0;
    }
    if (p.counts) ++p.counts[g];
    if (p.inverse) p.inverse[p.perm[i]] = g;
  }
  return 0;
}

}  // namespace cpu
}  // namespace ek
