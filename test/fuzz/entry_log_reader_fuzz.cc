// Fuzz target: the entry-log reader and scanner
// (bookie/storage/entry_log_reader.h), which read entry logs at start-up,
// for reads and for compaction.
//
// The first byte picks the shape: 0 the input as the whole file; 1 a valid
// header then the input; 2 valid records built from the input, then one
// bit flip or cut. The scanner runs over the file, and Read at offsets
// taken from the input. Invariants: no crash; an unmutated file scans back
// exactly; a record the scanner returns lies inside the file.

#include <vector>

#include "bookie/storage/entry_log_format.h"
#include "bookie/storage/entry_log_reader.h"
#include "common/env.h"
#include "test/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bk;
  namespace ef = bookie::entrylog;
  fuzz::Bytes in(data, size);
  const int shape = in.Byte() % 3;
  constexpr uint64_t kLogId = 3;
  std::string file;
  struct W {
    uint64_t offset, ledger;
    int64_t entry;
    std::string data;
  };
  std::vector<W> written;
  bool mutated = false;
  if (shape == 0) {
    file = in.Rest();
  } else {
    file.resize(ef::kFileHeaderSize);
    ef::EncodeFileHeader(kLogId, file.data());
    if (shape == 1) {
      file += in.Rest();
    } else {
      const int records = in.Byte() % 16;
      for (int i = 0; i < records; ++i) {
        const std::string d = in.Take(in.Byte());
        const uint64_t ledger = in.Int(1);
        const int64_t entry = static_cast<int64_t>(in.Int(1));
        char h[ef::kRecordHeaderSize];
        ef::EncodeRecordHeader(ledger, entry, d, h);
        written.push_back({file.size(), ledger, entry, d});
        file.append(h, sizeof(h));
        file += d;
      }
      const int mutation = in.Byte() % 3;
      if (!file.empty() && mutation != 0) {
        const uint64_t pos = in.Int(2) % file.size();
        mutated = true;
        if (mutation == 1) {
          file.resize(pos);
        } else {
          file[pos] = static_cast<char>(file[pos] ^ (1 << (in.Byte() % 8)));
        }
      }
    }
  }
  const std::string path = fuzz::WriteScratch(ef::LogFileName(kLogId), file);
  auto reader = bookie::EntryLogReader::Open(Env::Default(), path);
  if (!reader.ok()) return 0;
  bookie::EntryLogScanner scanner(**reader, ef::kFileHeaderSize, file.size(),
                                  1 + in.Int(2) % 4096);
  bookie::ScannedRecord rec;
  size_t n = 0;
  bool clean = false;
  for (int guard = 0; guard < 100000; ++guard) {
    auto more = scanner.Next(&rec);
    if (!more.ok()) break;
    if (!*more) {
      clean = true;
      break;
    }
    BK_FUZZ_CHECK(rec.offset + rec.size() <= file.size());
    if (shape == 2 && !mutated) {
      BK_FUZZ_CHECK(n < written.size());
      BK_FUZZ_CHECK(rec.offset == written[n].offset);
      BK_FUZZ_CHECK(rec.data == written[n].data);
    }
    ++n;
  }
  if (shape == 2 && !mutated) {
    BK_FUZZ_CHECK(clean && !scanner.torn_tail());
    BK_FUZZ_CHECK(n == written.size());
    for (const auto& w : written) {
      auto got = (*reader)->Read(w.offset, w.ledger, w.entry);
      BK_FUZZ_CHECK(got.ok());
      BK_FUZZ_CHECK(absl::string_view(**got) == w.data);
    }
  }
  // Reads at arbitrary offsets never crash.
  for (int i = 0; i < 4 && in.left() > 0; ++i) {
    (*reader)
        ->Read(in.Int(2), in.Int(1), static_cast<int64_t>(in.Int(1)))
        .status()
        .IgnoreError();
  }
  return 0;
}
