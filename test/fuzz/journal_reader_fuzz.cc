// Fuzz target: the journal reader (bookie/journal/journal_reader.h), which
// reads whatever a crash or a bad disk left at start-up.
//
// The first byte picks the shape of the file:
//   0: the input as the whole file;
//   1: a valid file header, then the input;
//   2: valid records built from the input, then one mutation (a cut, a bit
//      flip or a zeroed range) also taken from the input.
// Each file is read without and with skip_corrupt_records. Invariants: no
// crash; a reader never returns a record whose bytes were damaged, nor one
// that was not written, except, when skipping in a damaged file, one lying
// wholly inside a written record's payload (the limit of resynchronising
// on bytes that may hold anything); an unmutated file of valid records
// reads back exactly (padding records are read past, never returned).

#include <algorithm>
#include <vector>

#include "bookie/journal/journal_format.h"
#include "bookie/journal/journal_reader.h"
#include "common/env.h"
#include "test/fuzz/fuzz_util.h"

namespace {

namespace jf = bk::bookie::journal_format;

struct Written {
  uint64_t offset, end;
  std::string payload;
  bool padding;  // read past, never returned
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bk;
  fuzz::Bytes in(data, size);
  const int shape = in.Byte() % 3;
  constexpr uint64_t kFileId = 7;
  std::string file;
  std::vector<Written> written;
  uint64_t damaged_from = UINT64_MAX, damaged_to = 0;
  if (shape == 0) {
    file = in.Rest();
  } else {
    // Either flag value: files this small lie within the scan window, so
    // the aligned-groups flag must not change a thing.
    const jf::FileHeader fh = jf::EncodeFileHeader(
        kFileId, (in.Byte() & 1) != 0 ? jf::kFlagAlignedGroups : 0);
    file.assign(fh.data(), fh.size());
    if (shape == 1) {
      file += in.Rest();
    } else {
      const int records = in.Byte() % 16;
      for (int i = 0; i < records; ++i) {
        const uint8_t type = 1 + in.Byte() % jf::kMaxRecordType;
        const std::string payload = in.Take(in.Byte());
        jf::RecordHeader rh;
        jf::EncodeRecordHeader(static_cast<jf::RecordType>(type), in.Int(1),
                               static_cast<int64_t>(in.Int(1)), payload, &rh);
        jf::SaltRecordHeader(jf::RecordSalt(jf::kVersion, kFileId), rh.data());
        const uint64_t at = file.size();
        file.append(rh.data(), rh.size());
        file += payload;
        written.push_back(
            {at, file.size(), payload,
             type == static_cast<uint8_t>(jf::RecordType::kPadding)});
      }
      const int mutation = in.Byte() % 4;
      const uint64_t pos = file.empty() ? 0 : in.Int(2) % file.size();
      if (mutation == 1) {
        file.resize(pos);
        damaged_from = pos;
        damaged_to = UINT64_MAX;
      } else if (mutation == 2) {
        file[pos] = static_cast<char>(file[pos] ^ (1 << (in.Byte() % 8)));
        damaged_from = pos;
        damaged_to = pos + 1;
      } else if (mutation == 3) {
        // Only bytes that were not zero already are damaged (a zeroed range
        // over a header's zero bytes changes nothing).
        const uint64_t n = std::min<uint64_t>(in.Byte(), file.size() - pos);
        for (uint64_t k = pos; k < pos + n; ++k) {
          if (file[k] == '\0') continue;
          file[k] = '\0';
          damaged_from = std::min(damaged_from, k);
          damaged_to = k + 1;
        }
      }
    }
  }
  const std::string path = fuzz::WriteScratch(jf::FileName(kFileId), file);
  for (bool skip : {false, true}) {
    bookie::JournalReaderOptions o;
    o.skip_corrupt_records = skip;
    auto r =
        bookie::JournalFileReader::Open(Env::Default(), path, kFileId, 0, o);
    if (!r.ok()) continue;
    bookie::JournalRecordView v;
    size_t returned = 0;
    bool clean_end = false;
    for (int guard = 0; guard < 100000; ++guard) {
      auto more = (*r)->Next(&v);
      if (!more.ok()) break;
      if (!*more) {
        clean_end = true;
        break;
      }
      BK_FUZZ_CHECK(v.end_offset > v.offset);
      BK_FUZZ_CHECK(v.end_offset <= file.size());
      if (shape == 2) {
        // Every record returned is one that was written, undamaged.
        bool found = false;
        for (const auto& w : written) {
          if (w.offset == v.offset) {
            found =
                !w.padding && w.end == v.end_offset && w.payload == v.payload;
          }
        }
        // skip_corrupt_records' limit: in a damaged file, once a record's
        // own header is no guide (its bytes, or the file header that gives
        // its salt, damaged), bytes inside its payload (damaged ones
        // included) that form a valid record cannot be told from one
        // (JournalFileReader::FindValidRecordAfter). Such a record lies
        // wholly inside a written record's payload; anything else is a bug.
        bool inside_damaged = false;
        if (!found && skip && damaged_to != 0) {
          for (const auto& w : written) {
            inside_damaged = inside_damaged ||
                             (v.offset > w.offset && v.end_offset <= w.end);
          }
        }
        BK_FUZZ_CHECK(found || inside_damaged);
        BK_FUZZ_CHECK(inside_damaged || v.end_offset <= damaged_from ||
                      v.offset >= damaged_to);
      }
      ++returned;
    }
    if (shape == 2 && damaged_to == 0) {
      BK_FUZZ_CHECK(clean_end);
      size_t expected = 0;
      for (const auto& w : written) expected += w.padding ? 0 : 1;
      BK_FUZZ_CHECK(returned == expected);
    }
  }
  return 0;
}
