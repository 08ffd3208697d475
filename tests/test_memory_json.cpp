// The pool's snapshot as JSON (ek_memory_write_snapshot_json and its string form):
// the text parses back and agrees with ek_memory_get_snapshot and the
// statistics; file errors are EK_ERROR_IO and leave no file; bad arguments.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "ek_test.hpp"
#include "file_checks.hpp"

namespace {

// ---------------------------------------------------------------- a small JSON reader

struct Json {
  enum Kind { null, boolean, integer, real, string, array, object } kind = null;
  bool b = false;
  uint64_t u = 0;
  double d = 0;
  std::string s;
  std::vector<Json> items;
  std::map<std::string, Json> fields;
  const Json &operator[](const std::string &key) const {
    static const Json missing;
    auto it = fields.find(key);
    return it == fields.end() ? missing : it->second;
  }
};

// Strict enough for these tests: any syntax error throws.
class JsonReader {
 public:
  explicit JsonReader(const std::string &text) : t_(text) {}
  Json document() {
    Json v = value();
    space();
    if (i_ != t_.size()) throw std::runtime_error("trailing text at " + std::to_string(i_));
    return v;
  }

 private:
  void space() {
    while (i_ < t_.size() && std::strchr(" \t\r\n", t_[i_])) ++i_;
  }
  void expect(char c) {
    space();
    if (i_ >= t_.size() || t_[i_] != c)
      throw std::runtime_error(std::string("expected ") + c + " at " + std::to_string(i_));
    ++i_;
  }
  bool next_is(char c) {
    space();
    return i_ < t_.size() && t_[i_] == c;
  }
  bool literal(const char *word) {
    size_t n = std::strlen(word);
    if (t_.compare(i_, n, word) != 0) return false;
    i_ += n;
    return true;
  }
  Json value() {
    space();
    Json v;
    if (next_is('{')) return object();
    if (next_is('[')) return array();
    if (next_is('"')) {
      v.kind = Json::string;
      v.s = string();
    } else if (literal("true")) {
      v.kind = Json::boolean;
      v.b = true;
    } else if (literal("false")) {
      v.kind = Json::boolean;
    } else if (literal("null")) {
    } else {
      v = number();
    }
    return v;
  }
  Json number() {
    size_t start = i_;
    while (i_ < t_.size() && std::strchr("-+.eE0123456789", t_[i_])) ++i_;
    std::string text = t_.substr(start, i_ - start);
    if (text.empty()) throw std::runtime_error("bad value at " + std::to_string(start));
    Json v;
    if (text.find_first_not_of("0123456789") == std::string::npos) {
      v.kind = Json::integer;
      v.u = std::stoull(text);  // exact up to 2^64 - 1
    } else {
      v.kind = Json::real;
      v.d = std::stod(text);
    }
    return v;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (i_ < t_.size() && t_[i_] != '"') {
      unsigned char c = static_cast<unsigned char>(t_[i_++]);
      if (c < 0x20) throw std::runtime_error("raw control character in a string");
      if (c != '\\') {
        out += char(c);
        continue;
      }
      char e = t_.at(i_++);
      if (e == 'u') {
        out += "\\u" + t_.substr(i_, 4);  // kept escaped: enough for these tests
        i_ += 4;
      } else {
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      }
    }
    expect('"');
    return out;
  }
  Json array() {
    expect('[');
    Json v;
    v.kind = Json::array;
    if (next_is(']')) {
      ++i_;
      return v;
    }
    for (;;) {
      v.items.push_back(value());
      if (!next_is(',')) break;
      ++i_;
    }
    expect(']');
    return v;
  }
  Json object() {
    expect('{');
    Json v;
    v.kind = Json::object;
    if (next_is('}')) {
      ++i_;
      return v;
    }
    for (;;) {
      std::string key = string();
      expect(':');
      if (!v.fields.emplace(key, value()).second) throw std::runtime_error("duplicate " + key);
      if (!next_is(',')) break;
      ++i_;
    }
    expect('}');
    return v;
  }
  const std::string &t_;
  size_t i_ = 0;
};

Json parse(const std::string &text) { return JsonReader(text).document(); }

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> files_in(const std::string &dir) {
  std::vector<std::string> names;
  std::unique_ptr<DIR, int (*)(DIR *)> d(opendir(dir.c_str()), closedir);
  if (!d) return names;
  while (dirent *e = readdir(d.get()))
    if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) names.push_back(e->d_name);
  return names;
}

// ---------------------------------------------------------------- fixture

class MemoryJsonTest : public ektest::DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    std::string pattern = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                          "/ek-memory-json-XXXXXX";
    ASSERT_NE(mkdtemp(&pattern[0]), nullptr);
    dir = pattern;
  }
  void TearDown() override {
    for (const std::string &name : files_in(dir)) unlink((dir + "/" + name).c_str());
    rmdir(dir.c_str());
    for (void *p : live) EXPECT_EQ(ek_free(nullptr, ctx, p), EK_SUCCESS);
    DeviceTest::TearDown();
  }
  void *allocate(size_t bytes) {
    void *p = nullptr;
    EXPECT_EQ(ek_malloc(nullptr, ctx, bytes, &p), EK_SUCCESS) << ek_last_error();
    return p;
  }
  // Live and free blocks in two segments: a fragmented cache.
  void fragment() {
    void *a = allocate(300), *b = allocate(100 * 1024), *c = allocate(5000);
    void *d = allocate(3 << 20), *e = allocate(1 << 20);
    EK_EXPECT_OK(ek_free(nullptr, ctx, b));
    EK_EXPECT_OK(ek_free(nullptr, ctx, e));
    live = {a, c, d};
  }
  std::vector<ek_memory_block> snapshot() {
    size_t n = 0;
    EXPECT_EQ(ek_memory_get_snapshot(ctx, nullptr, 0, &n), EK_SUCCESS);
    std::vector<ek_memory_block> blocks(n, ektest::sized<ek_memory_block>());
    EXPECT_EQ(ek_memory_get_snapshot(ctx, blocks.data(), n, &n), EK_SUCCESS);
    return blocks;
  }
  std::string dir;
  std::vector<void *> live;
};

TEST_P(MemoryJsonTest, FileParsesBackAndAgreesWithTheSnapshotAndStats) {
  fragment();
  std::string path = dir + "/snapshot.json";
  EK_OK(ek_memory_write_snapshot_json(ctx, path.c_str()));
  Json doc = parse(read_file(path));
  ek_memory_stats stats = EK_MEMORY_STATS_INIT;
  EK_OK(ek_memory_get_stats(ctx, &stats));
  std::vector<ek_memory_block> blocks = snapshot();

  EXPECT_EQ(doc["version"].u, 1u);
  EXPECT_EQ(doc["device"]["type"].s, GetParam() == EK_CUDA ? "cuda" : "cpu");
  EXPECT_EQ(doc["device"]["index"].u, 0u);
  EXPECT_FALSE(doc["device"]["name"].s.empty());

  const Json &s = doc["stats"];
  EXPECT_EQ(s.fields.size(), 22u) << "every field of ek_memory_stats";
  EXPECT_EQ(s["allocated_bytes"].u, stats.allocated_bytes);
  EXPECT_EQ(s["reserved_bytes"].u, stats.reserved_bytes);
  EXPECT_EQ(s["requested_bytes"].u, stats.requested_bytes);
  EXPECT_EQ(s["active_blocks"].u, stats.active_blocks);
  EXPECT_EQ(s["cached_blocks"].u, stats.cached_blocks);
  EXPECT_EQ(s["segments"].u, stats.segments);
  EXPECT_EQ(s["largest_free_block"].u, stats.largest_free_block);
  EXPECT_EQ(s["limit_bytes"].u, stats.limit_bytes);
  EXPECT_GT(stats.fragmentation, 0.0);
  EXPECT_EQ(s["fragmentation"].kind, Json::real);
  EXPECT_DOUBLE_EQ(s["fragmentation"].d, stats.fragmentation);

  // The same blocks, in the same order, as ek_memory_get_snapshot.
  size_t n = 0;
  uint64_t reserved = 0, allocated = 0, requested = 0;
  for (const Json &seg : doc["segments"].items) {
    reserved += seg["size"].u;
    uint64_t covered = 0;
    for (const Json &b : seg["blocks"].items) {
      ASSERT_LT(n, blocks.size());
      const ek_memory_block &want = blocks[n++];
      EXPECT_EQ(seg["address"].u, want.segment_address);
      EXPECT_EQ(seg["size"].u, want.segment_size);
      EXPECT_EQ(b["address"].u, want.address);
      EXPECT_EQ(b["size"].u, want.size);
      EXPECT_EQ(b["requested"].u, want.requested);
      EXPECT_EQ(b["allocated"].kind, Json::boolean);
      EXPECT_EQ(b["allocated"].b, want.allocated == 1);
      EXPECT_EQ(b["stream_id"].u, want.stream_id);
      EXPECT_EQ(b["address"].u, seg["address"].u + covered) << "blocks tile their segment";
      covered += b["size"].u;
      if (b["allocated"].b) allocated += b["size"].u, requested += b["requested"].u;
    }
    EXPECT_EQ(covered, seg["size"].u);
  }
  EXPECT_EQ(n, blocks.size());
  EXPECT_EQ(doc["segments"].items.size(), stats.segments);
  EXPECT_EQ(reserved, stats.reserved_bytes);
  EXPECT_EQ(allocated, stats.allocated_bytes);
  EXPECT_EQ(requested, stats.requested_bytes);
}

TEST_P(MemoryJsonTest, EmptyPoolHasNoSegments) {
  std::string path = dir + "/empty.json";
  EK_OK(ek_memory_write_snapshot_json(ctx, path.c_str()));
  Json doc = parse(read_file(path));
  EXPECT_EQ(doc["segments"].kind, Json::array);
  EXPECT_TRUE(doc["segments"].items.empty());
  EXPECT_EQ(doc["stats"]["reserved_bytes"].u, 0u);
}

TEST_P(MemoryJsonTest, StringFormIsTheFilesTextAndTruncatesLikeSnprintf) {
  fragment();
  std::string path = dir + "/snapshot.json";
  EK_OK(ek_memory_write_snapshot_json(ctx, path.c_str()));
  std::string file = read_file(path);
  size_t length = 0;
  EK_OK(ek_memory_get_snapshot_json(ctx, nullptr, 0, &length));
  EXPECT_EQ(length, file.size());
  std::vector<char> buffer(length + 1, 'x');
  size_t again = 0;
  EK_OK(ek_memory_get_snapshot_json(ctx, buffer.data(), buffer.size(), &again));
  EXPECT_EQ(again, length);
  EXPECT_EQ(std::string(buffer.data()), file);

  char small[10];
  EK_OK(ek_memory_get_snapshot_json(ctx, small, sizeof small, &again));
  EXPECT_EQ(again, length) << "the full length, though only 9 bytes fit";
  EXPECT_EQ(std::string(small), file.substr(0, 9));
  char one = 'x';
  EK_OK(ek_memory_get_snapshot_json(ctx, &one, 1, &again));
  EXPECT_EQ(one, '\0');
}

TEST_P(MemoryJsonTest, AnExistingFileIsReplaced) {
  std::string path = dir + "/snapshot.json";
  { std::ofstream(path) << "old contents that are longer than nothing at all"; }
  fragment();
  EK_OK(ek_memory_write_snapshot_json(ctx, path.c_str()));
  Json doc = parse(read_file(path));
  EXPECT_EQ(doc["segments"].items.size(), 2u);
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"snapshot.json"});
}

TEST_P(MemoryJsonTest, UnwritablePathsAreIoErrorsNamingThePathAndLeaveNoFile) {
  std::string missing = dir + "/no/such/dir/snapshot.json";
  EK_FAILS(
      ek_memory_write_snapshot_json(ctx, missing.c_str()), EK_ERROR_IO,
      "ek_memory_write_snapshot_json: cannot write " + missing + ": No such file or directory");
  // A directory at path is not replaced: it cannot be written in place.
  std::string sub = dir + "/taken";
  ASSERT_EQ(mkdir(sub.c_str(), 0700), 0);
  EK_FAILS(ek_memory_write_snapshot_json(ctx, sub.c_str()), EK_ERROR_IO,
           "cannot write " + sub + ": Is a directory");
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"taken"}) << "no temporary file left";
  EXPECT_TRUE(files_in(sub).empty());
  rmdir(sub.c_str());
}

// A FIFO, a device, a symlink to either or to a file, a long name, "".
TEST_P(MemoryJsonTest, ReplacesOnlyARegularFileAndWritesDevicesInPlace) {
  filecheck::check_file_writer(dir, [&](const char *path) {
    return ek_memory_write_snapshot_json(ctx, path);
  });
}

TEST_P(MemoryJsonTest, BadArgumentsAreRejectedAndOutputsUntouched) {
  EK_FAILS(ek_memory_write_snapshot_json(nullptr, "x.json"), EK_ERROR_NULL_POINTER,
           "ek_memory_write_snapshot_json: ctx is NULL");
  EK_FAILS(ek_memory_write_snapshot_json(ctx, nullptr), EK_ERROR_NULL_POINTER, "path is NULL");
  EK_FAILS(ek_memory_write_snapshot_json(ctx, ""), EK_ERROR_INVALID_ARGUMENT, "path is empty");
  size_t length = 7;
  char buffer[4] = "abc";
  EK_FAILS(ek_memory_get_snapshot_json(nullptr, buffer, 4, &length), EK_ERROR_NULL_POINTER,
           "ek_memory_get_snapshot_json: ctx is NULL");
  EK_FAILS(ek_memory_get_snapshot_json(ctx, buffer, 4, nullptr), EK_ERROR_NULL_POINTER,
           "length is NULL");
  EK_FAILS(ek_memory_get_snapshot_json(ctx, nullptr, 4, &length), EK_ERROR_NULL_POINTER,
           "buffer is NULL but capacity is 4");
  EXPECT_EQ(length, 7u);
  EXPECT_STREQ(buffer, "abc");
}

EK_INSTANTIATE_DEVICES(MemoryJsonTest);

}  // namespace
