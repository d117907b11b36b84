// EntryArena: copies that outlive their source, blocks shared by small
// entries and freed with their last handle, large entries apart.

#include "bookie/storage/entry_arena.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

namespace bk::bookie {
namespace {

TEST_CASE("an arena copy keeps its bytes when the source changes",
          "[storage]") {
  EntryArena arena;
  std::string source = "packaged entry bytes";
  EntryBuffer copy = arena.Copy(source);
  source.assign(source.size(), 'x');
  REQUIRE(copy);
  CHECK(*copy == "packaged entry bytes");
  CHECK(copy->data() != source.data());

  EntryBuffer empty = arena.Copy("");
  CHECK(empty);  // a handle, not the null one
  CHECK(empty->empty());
}

TEST_CASE("an arena packs small entries into a few growing blocks",
          "[storage]") {
  EntryArena arena;
  std::vector<EntryBuffer> kept;
  const std::string kib(1024, 'a');
  for (int i = 0; i < 2000; ++i) kept.push_back(arena.Copy(kib));
  // 64 + 128 KiB hold 192 entries, then blocks of 256 KiB: eight more for
  // the other 1808. One allocation per entry would be 2000.
  CHECK(arena.blocks() == 10);
  // Entries of a block sit back to back.
  CHECK(kept[1]->data() == kept[0]->data() + kib.size());
  for (const EntryBuffer& e : kept) REQUIRE(*e == kib);
}

TEST_CASE("an arena block lives until its last handle is dropped",
          "[storage]") {
  std::weak_ptr<const void> block;
  EntryBuffer survivor;
  {
    EntryArena arena;
    EntryBuffer first = arena.Copy("first");
    survivor = arena.Copy("second");
    block = first.owner();
    // The same block's count: neither owner orders before the other.
    CHECK_FALSE(first.owner().owner_before(survivor.owner()));
    CHECK_FALSE(survivor.owner().owner_before(first.owner()));
  }
  // The arena and the first handle are gone; the second keeps the block.
  CHECK_FALSE(block.expired());
  CHECK(*survivor == "second");
  survivor = nullptr;
  CHECK(block.expired());
}

TEST_CASE("a large entry gets a block of its own and leaves the current one",
          "[storage]") {
  EntryArena arena;
  EntryBuffer a = arena.Copy("small a");
  const std::string large(EntryArena::kMaxBlockBytes / 4 + 1, 'L');
  EntryBuffer big = arena.Copy(large);
  EntryBuffer b = arena.Copy("small b");
  CHECK(*big == large);
  CHECK(arena.blocks() == 2);
  CHECK(b->data() == a->data() + a->size());
  std::weak_ptr<const void> big_block = big.owner();
  big = nullptr;
  CHECK(big_block.expired());  // freed at once, the small ones kept
  CHECK(*a == "small a");
}

TEST_CASE("entry buffer handles compare as pointers do", "[storage]") {
  EntryBuffer made = MakeEntryBuffer("bytes");
  EntryBuffer same = made;
  EntryBuffer other = MakeEntryBuffer("bytes");
  CHECK(same == made);
  CHECK_FALSE(other == made);  // equal bytes, another copy
  CHECK(*other == *made);
  EntryBuffer none;
  CHECK(none == nullptr);
  CHECK_FALSE(made == nullptr);
  std::shared_ptr<const void> owner = std::move(same).TakeOwner();
  CHECK(same == nullptr);
  CHECK(owner == made.owner());
}

}  // namespace
}  // namespace bk::bookie
