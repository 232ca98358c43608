// Exports as delivered: gzip, zstd and zip copies of the FOCUS sample read to exactly the plain
// file's rows and sums; damaged compression is refused naming the file; standard input is read
// once and hashed as it goes (source.cc, reader.cc, spool.cc, ingest.cc).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <thread>

#include "aicost/billing/ingest.h"
#include "aicost/billing/reader.h"
#include "aicost/billing/source.h"
#include "aicost/store/open.h"
#include "collected.h"
#include "compress_support.h"
#include "ledger_test_support.h"
#include "temp_dir.h"

namespace aicost::billing {
namespace {

using testing::Packing;
using testing::slurp;
using testing::write_packed;

const std::string kSample = testing::samples_dir() + "focus-sample-data/focus_sample.csv";

struct Totals {
  std::int64_t records = 0, loaded = 0, rows = 0;
  std::map<std::string, std::pair<core::WideNanos, core::WideNanos>>
      money;  // currency: billed, effective
  std::string version;
  bool operator==(const Totals&) const = default;
};

Totals totals_of(const std::string& path) {
  Collected c;
  auto s = read_file(path, Format::kAuto, c.sink());
  EXPECT_TRUE(s) << (s ? "" : s.error().what());
  Totals t;
  if (!s) return t;
  t.records = s->records;
  t.loaded = s->loaded;
  t.version = s->version;
  for (const auto& ch : c.charges) {
    auto& m = t.money[ch.currency];
    m.first += ch.billed;
    m.second += ch.effective;
    ++t.rows;
  }
  return t;
}

// Standard input replaced by `fd` for the life of the object.
class StdinFrom {
 public:
  explicit StdinFrom(int fd) : saved_(::dup(0)) { ::dup2(fd, 0); }
  ~StdinFrom() {
    ::dup2(saved_, 0);
    ::close(saved_);
  }

 private:
  int saved_;
};

class SourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    plain_ = slurp(kSample);
    ASSERT_GT(plain_.size(), 100000u);
  }
  std::string packed(const std::string& name, Packing p) {
    const auto path = dir_.file(name);
    write_packed(path, p, {{"focus_sample.csv", plain_}});
    return path;
  }
  testing::TempDir dir_{"aicost-source"};
  std::string plain_;
};

TEST(SniffEncoding, FirstBytesDecideNotTheName) {
  EXPECT_EQ(sniff_encoding("\x1F\x8B\x08\x00"), Encoding::kGzip);
  EXPECT_EQ(sniff_encoding("\x28\xB5\x2F\xFD"), Encoding::kZstd);
  EXPECT_EQ(sniff_encoding("PK\x03\x04"), Encoding::kZip);
  EXPECT_EQ(sniff_encoding("BZh91AY&SY"), Encoding::kBzip2);
  EXPECT_EQ(sniff_encoding(std::string_view("\xFD"
                                            "7zXZ\0\0",
                                            7)),
            Encoding::kXz);
  EXPECT_EQ(sniff_encoding("BZh,x\n"), Encoding::kPlain);  // a header that starts so is text
  EXPECT_EQ(sniff_encoding("BilledCost,ChargePeriodStart"), Encoding::kPlain);
  EXPECT_EQ(sniff_encoding("PAR1"), Encoding::kPlain);  // the Parquet reader's, not a compression
  EXPECT_EQ(sniff_encoding(""), Encoding::kPlain);
}

TEST_F(SourceTest, GzipZstdZipBzip2AndXzCopiesGiveExactlyThePlainTotals) {
  const Totals plain = totals_of(kSample);
  ASSERT_EQ(plain.loaded, 1000);
  // Named .csv on purpose: the content decides, not the name.
  for (auto [name, p] : {std::pair{"gz.csv", Packing::kGzip},
                         {"zst.csv", Packing::kZstd},
                         {"zip.csv", Packing::kZip},
                         {"bz2.csv", Packing::kBzip2},
                         {"xz.csv", Packing::kXz}}) {
    const auto path = packed(name, p);
    EXPECT_NE(slurp(path), plain_) << name;  // really compressed
    EXPECT_EQ(totals_of(path), plain) << name;
    Collected c;
    auto r = read_source(path, Format::kAuto, c.sink(), true);
    ASSERT_TRUE(r) << r.error().what();
    EXPECT_EQ(r->encoding, sniff_encoding(slurp(path).substr(0, 6))) << name;
    // One member: its identity is that of the plain file's bytes (sha256_file hashes those).
    EXPECT_EQ(delivery_identity(r->member_sha256), *sha256_file(kSample)) << name;
    auto digests = member_digests(path);
    ASSERT_TRUE(digests);
    EXPECT_EQ(*digests, r->member_sha256) << name;
  }
}

TEST_F(SourceTest, ZipOfSeveralCsvMembersReadsEachWithItsHeader) {
  const auto header_end = plain_.find('\n') + 1;
  // Split after the 400th data row.
  std::size_t cut = header_end;
  for (int i = 0; i < 400; ++i) cut = plain_.find('\n', cut) + 1;
  const std::string first = plain_.substr(0, cut),
                    second = plain_.substr(0, header_end) + plain_.substr(cut);
  const auto path = dir_.file("two.zip");
  write_packed(path, Packing::kZip, {{"part-1.csv", first}, {"dir/part-2.csv", second}});
  EXPECT_EQ(totals_of(path), totals_of(kSample));
  Collected c;
  auto r = read_source(path, Format::kAuto, c.sink(), true);
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->members, (std::vector<std::string>{"part-1.csv", "dir/part-2.csv"}));
  EXPECT_EQ(r->member_sha256.size(), 2u);
  // Two members: the identity is of the members' hashes, whatever their order.
  auto swapped = r->member_sha256;
  std::swap(swapped[0], swapped[1]);
  EXPECT_EQ(delivery_identity(r->member_sha256), delivery_identity(swapped));
  EXPECT_NE(delivery_identity(r->member_sha256), *sha256_file(kSample));
}

// `cat a.gz b.gz` is a gzip file of two members (RFC 1952 §2.2): both are read, as gzip -d does.
TEST_F(SourceTest, ConcatenatedGzipMembersReadOn) {
  std::size_t cut = plain_.find('\n') + 1;
  for (int i = 0; i < 600; ++i) cut = plain_.find('\n', cut) + 1;
  const auto a = dir_.file("a.gz"), b = dir_.file("b.gz");
  write_packed(a, Packing::kGzip, {{"a", plain_.substr(0, cut)}});
  write_packed(b, Packing::kGzip, {{"b", plain_.substr(cut)}});
  const auto both = dir_.write("both.csv.gz", slurp(a) + slurp(b));
  EXPECT_EQ(totals_of(both), totals_of(kSample));
}

TEST_F(SourceTest, TruncatedGzipIsRefusedNamingTheFileAndWhatToDo) {
  const auto whole = slurp(packed("whole.csv.gz", Packing::kGzip));
  const auto cut = dir_.write("cut.csv.gz", whole.substr(0, whole.size() / 2));
  Collected c;
  auto r = read_file(cut, Format::kAuto, c.sink());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().context, cut);
  EXPECT_NE(r.error().message.find("gzip data is damaged or cut short"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("gzip -t " + cut), std::string::npos) << r.error().message;
}

TEST_F(SourceTest, CorruptGzipLoadsNothing) {
  auto bytes = slurp(packed("whole.csv.gz", Packing::kGzip));
  for (std::size_t i = bytes.size() / 3; i < bytes.size() / 3 + 64; ++i)
    bytes[i] = static_cast<char>(bytes[i] ^ 0x5A);
  const auto bad = dir_.write("bad.csv.gz", bytes);
  auto store = store::open_store(dir_.file("ledger.db"), {.mode = store::OpenMode::kCreate});
  ASSERT_TRUE(store) << store.error().what();
  IngestOptions opts;
  opts.batch = 50;  // rows reach the store before the damage is found
  auto r = ingest_file(**store, bad, opts);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("damaged or cut short"), std::string::npos) << r.error().message;
  auto sources = (*store)->sources();
  ASSERT_TRUE(sources);
  EXPECT_TRUE(sources->empty());
}

TEST_F(SourceTest, StandardInputIsReadOnceFromAPipe) {
  const auto gz = slurp(packed("pipe.csv.gz", Packing::kGzip));
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::thread writer([&] {
    for (std::size_t at = 0; at < gz.size();) {
      const auto n = ::write(fds[1], gz.data() + at, std::min<std::size_t>(4096, gz.size() - at));
      if (n <= 0) break;
      at += static_cast<std::size_t>(n);
    }
    ::close(fds[1]);
  });
  Totals t;
  {
    StdinFrom in(fds[0]);
    t = totals_of("-");
  }
  writer.join();
  ::close(fds[0]);
  EXPECT_EQ(t, totals_of(kSample));
}

// Standard input is hashed as it loads: the plain file and its gzip copy through stdin are one
// source, and a load of bytes already there is rolled back.
TEST_F(SourceTest, StandardInputIngestKnowsLoadedBytes) {
  auto store = store::open_store(dir_.file("ledger.db"), {.mode = store::OpenMode::kCreate});
  ASSERT_TRUE(store) << store.error().what();
  const auto gz = packed("in.csv.gz", Packing::kGzip);
  auto from_stdin = [&](const std::string& file) {
    const int fd = ::open(file.c_str(), O_RDONLY);
    StdinFrom in(fd);
    auto r = ingest_file(**store, "-", {});
    ::close(fd);
    return r;
  };
  auto first = from_stdin(gz);
  ASSERT_TRUE(first) << first.error().what();
  EXPECT_EQ(first->outcome, IngestResult::Outcome::kLoaded);
  EXPECT_EQ(first->record.rows, 1000);
  EXPECT_EQ(first->record.file.path, kStdinName);
  EXPECT_EQ(first->record.file.sha256, *sha256_file(kSample));
  EXPECT_EQ(first->record.file.bytes, static_cast<std::int64_t>(slurp(gz).size()));
  for (const std::string& again : {gz, kSample}) {
    auto r = from_stdin(again);
    ASSERT_TRUE(r) << r.error().what();
    EXPECT_EQ(r->outcome, IngestResult::Outcome::kAlreadyLoaded) << again;
    EXPECT_EQ(r->record.id, first->record.id);
  }
  auto file = ingest_file(**store, gz, {});  // by name: hashed before any transaction
  ASSERT_TRUE(file) << file.error().what();
  EXPECT_EQ(file->outcome, IngestResult::Outcome::kAlreadyLoaded);
  auto sources = (*store)->sources();
  ASSERT_TRUE(sources);
  EXPECT_EQ(sources->size(), 1u);
  EXPECT_EQ(sources->front().rows, 1000);
}

}  // namespace
}  // namespace aicost::billing
