// Snapshots checked for meaning as well as bytes: a file whose checksums are valid (resealed
// after the edit, as a careless tool or an attacker would) but whose arrays say something false
// is refused naming the section and index; and a loaded world does not change when its file
// is overwritten or cut short in place.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include <capsweep/files.h>

#include "world/world_arrays.h"
#include "tests/support/same_answers.h"
#include "tools/arena.h"
#include "tools/workloads.h"

namespace {

using namespace capsweep;

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "capsweep_meaning_" + std::to_string(getpid()) + "_" + name;
}

std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// The CWSW layout of docs/FORMATS.md: a 128-byte header, then 64-byte aligned sections, the
// first of them (since version 4) the 64-byte heightfield section.
std::uint64_t align_up(std::uint64_t n) { return (n + 63) / 64 * 64; }

// The arena with its last triangle also on layer 2: a file with a mask per triangle and per BVH
// child (a mesh all on one mask keeps neither).
World arena_with_masks() {
  std::vector<Triangle> tris = make_arena();
  std::vector<std::uint32_t> layers(tris.size(), kDefaultLayers);
  layers.back() |= 2u;
  return World(std::move(tris), std::move(layers));
}

class SnapshotMeaning : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = temp_path("arena.cwsw");
    save_snapshot(world_, "@arena", path_);
    bytes_ = read_bytes(path_);
    const std::uint64_t tris = world_.triangle_count();
    nodes_ = align_up(128 + 64);
    blocks_ = align_up(nodes_ + world_.arrays().bvh.nodes.size() * sizeof(WideNode));
    links_ = align_up(blocks_ + world_.arrays().bvh.blocks.size() * sizeof(TriangleBlock));
    link_bits_ = link_index_bits(tris) + 2;
    layers_ = align_up(links_ + packed_words(3 * tris, link_bits_) * sizeof(std::uint64_t));
    child_layers_ = align_up(layers_ + tris * sizeof(std::uint32_t));
  }
  void TearDown() override { std::remove(path_.c_str()); }

  // Writes the edited bytes with both checksums recomputed, and returns why loading refuses them.
  std::string refusal_after_resealing() {
    const std::uint64_t payload = snapshot_checksum(bytes_.data() + 128, bytes_.size() - 128);
    std::memcpy(bytes_.data() + 104, &payload, 8);
    const std::uint64_t header = snapshot_checksum(bytes_.data(), 120);
    std::memcpy(bytes_.data() + 120, &header, 8);
    write_bytes(path_, bytes_);
    try {
      load_snapshot(path_);
      return "";
    } catch (const SnapshotError& e) {
      return e.what();
    }
  }
  template <class T>
  void poke(std::uint64_t offset, T value) {
    std::memcpy(bytes_.data() + offset, &value, sizeof value);
  }

  World world_ = arena_with_masks();
  std::string path_;
  std::vector<unsigned char> bytes_;
  std::uint64_t nodes_ = 0, blocks_ = 0, links_ = 0, layers_ = 0, child_layers_ = 0;
  std::uint32_t link_bits_ = 0;  // a link value's width (adjacency.h: LinksView)
};

TEST_F(SnapshotMeaning, AnUneditedFileLoads) { EXPECT_EQ(refusal_after_resealing(), ""); }

// Version 7: a mesh all on one mask says so in the header (offset 112) and holds no masks; the
// header and the sections must agree, either way.
TEST_F(SnapshotMeaning, TheOneMaskAndTheSectionsAgree) {
  poke(112, std::uint32_t(1));  // one mask said, the masks still there
  EXPECT_NE(refusal_after_resealing().find(" bytes beyond what the header describes"), std::string::npos);
  save_snapshot(World(make_arena()), "@arena", path_);
  bytes_ = read_bytes(path_);
  std::uint32_t one = 0;
  std::memcpy(&one, bytes_.data() + 112, 4);
  EXPECT_EQ(one, kDefaultLayers);
  EXPECT_EQ(refusal_after_resealing(), "");
  poke(112, std::uint32_t(0));  // masks said, none there
  EXPECT_NE(refusal_after_resealing().find("truncated"), std::string::npos);
  poke(112, kDefaultLayers);
  // The word after it counts the sections after the world (it was a spare zero before them): at
  // most kMaxSnapshotSections, each of them there.
  poke(116, std::uint32_t(kMaxSnapshotSections + 1));
  EXPECT_EQ(refusal_after_resealing(), path_ + ": the header holds counts out of range");
  poke(116, std::uint32_t(1));
  EXPECT_EQ(refusal_after_resealing(), path_ + ": section 0: truncated (the header names 1 sections)");
  poke(116, std::uint32_t(0));
  // A world of terrain alone says 1 (the mask a mesh would default to), nothing else.
  Heightfield flat;
  flat.columns = flat.rows = 3;
  flat.heights.assign(9, 0.f);
  save_snapshot(World(flat), "flat", path_);
  bytes_ = read_bytes(path_);
  EXPECT_EQ(refusal_after_resealing(), "");
  for (std::uint32_t said : {0u, 2u}) {
    poke(112, said);
    EXPECT_EQ(refusal_after_resealing(), path_ + ": the header holds counts out of range") << said;
  }
}

TEST_F(SnapshotMeaning, ATriangleOutsideTheWorldBoundsIsRefused) {
  poke(72 + 3 * sizeof(float), world_.bounds().max.x - 1.f);  // the header's bounds.max.x
  const std::string why = refusal_after_resealing();
  EXPECT_NE(why.find(": triangle "), std::string::npos) << why;
  EXPECT_NE(why.find(" lies outside the world's bounds"), std::string::npos) << why;
}

// The blocks are the mesh's one copy (since version 7): a vertex moved out of its node's box, or out
// of the world's bounds, is refused. (Version 6 also kept the triangles apart, and a block
// whose copy differed from them was refused as such.)
TEST_F(SnapshotMeaning, ABlockLaneOutsideItsBoxOrTheBoundsIsRefused) {
  const auto& nodes = world_.arrays().bvh.nodes;
  std::size_t parent = 0;
  int slot = 0;
  for (; parent < nodes.size(); ++parent) {
    slot = int(std::find(nodes[parent].child, nodes[parent].child + WideNode::kWidth, WideNode::kLeaf | 3u) - nodes[parent].child);
    if (slot < WideNode::kWidth) break;
  }
  ASSERT_LT(parent, nodes.size()) << "block 3 has a parent";
  const float above_box = nodes[parent].max_y[slot] + 0.25f;
  ASSERT_LT(above_box, world_.bounds().max.y) << "the arena is taller than block 3's box";
  // Lane 1's second vertex (lane 0's would also break the copies in unused lanes).
  ASSERT_TRUE(world_.arrays().bvh.blocks[3].valid(1));
  const std::uint64_t y1 = blocks_ + 3 * sizeof(TriangleBlock) + offsetof(TriangleBlock, y1) + sizeof(float);
  poke(y1, above_box);  // higher than the box
  EXPECT_EQ(refusal_after_resealing(), path_ + ": BVH node " + std::to_string(parent) + ": the box of child " +
                                           std::to_string(slot) + " does not contain what lies below it");
  poke(y1, world_.bounds().max.y + 1.f);
  const std::string why = refusal_after_resealing();
  EXPECT_EQ(why, path_ + ": triangle " + std::to_string(world_.arrays().bvh.blocks[3].triangle[1]) +
                     " lies outside the world's bounds");
}

// The used lanes of a block come first (every reader stops at the first unused lane): a block
// with a hole in them is refused, before any triangle is read through it.
TEST_F(SnapshotMeaning, ABlockWithAnUnusedLaneBeforeAUsedOneIsRefused) {
  const auto& blocks = world_.arrays().bvh.blocks;
  std::size_t b = 0;
  while (b < blocks.size() && !blocks[b].valid(2)) ++b;
  ASSERT_LT(b, blocks.size()) << "the arena has a block of three triangles or more";
  poke(blocks_ + b * sizeof(TriangleBlock) + offsetof(TriangleBlock, triangle) + sizeof(std::uint32_t), kNoTriangle);
  EXPECT_EQ(refusal_after_resealing(), path_ + ": block " + std::to_string(b) + ": lane 2 is used after an unused one");
}

// A block's unused lanes are copies of its first (the kernels sweep them and drop the answer:
// finite arithmetic, no special case); one that is not is refused.
TEST_F(SnapshotMeaning, ABlockWhoseUnusedLaneIsNotACopyIsRefused) {
  const auto& blocks = world_.arrays().bvh.blocks;
  std::size_t b = 0;
  while (b < blocks.size() && blocks[b].valid(kBlockLanes - 1)) ++b;
  ASSERT_LT(b, blocks.size()) << "the arena has a block with an unused lane";
  poke(blocks_ + b * sizeof(TriangleBlock) + offsetof(TriangleBlock, x2) + (kBlockLanes - 1) * sizeof(float),
       blocks[b].x2[0] + 1.f);
  EXPECT_EQ(refusal_after_resealing(), path_ + ": block " + std::to_string(b) + ": its unused lanes are not copies of its first");
}

TEST_F(SnapshotMeaning, AChildBoxThatDoesNotHoldItsSubtreeIsRefused) {
  const WideNode& root = world_.arrays().bvh.nodes[0];
  poke(nodes_ + offsetof(WideNode, max_x) + 1 * sizeof(float), root.min_x[1]);  // child 1's box: flat in x
  EXPECT_EQ(refusal_after_resealing(), path_ + ": BVH node 0: the box of child 1 does not contain what lies below it");
}

// An unused slot (link 0xFFFFFFFF) has an all-zero box, so a file's bytes are the builder's.
TEST_F(SnapshotMeaning, AnUnusedSlotWithABoxIsRefused) {
  const auto& nodes = world_.arrays().bvh.nodes;
  std::size_t i = 0;
  while (i < nodes.size() && nodes[i].used(WideNode::kWidth - 1)) ++i;
  ASSERT_LT(i, nodes.size()) << "the arena has a node with an unused slot";
  poke(nodes_ + i * sizeof(WideNode) + offsetof(WideNode, max_y) + (WideNode::kWidth - 1) * sizeof(float), 1.f);
  EXPECT_EQ(refusal_after_resealing(), path_ + ": BVH node " + std::to_string(i) + ": an unused slot has a box");
  // Not even -0.0, which compares equal to zero.
  poke(nodes_ + i * sizeof(WideNode) + offsetof(WideNode, max_y) + (WideNode::kWidth - 1) * sizeof(float), 0.f);
  poke(nodes_ + i * sizeof(WideNode) + offsetof(WideNode, min_z) + (WideNode::kWidth - 1) * sizeof(float), -0.f);
  EXPECT_EQ(refusal_after_resealing(), path_ + ": BVH node " + std::to_string(i) + ": an unused slot has a box");
}

TEST_F(SnapshotMeaning, ANodeWithNoChildIsRefused) {
  for (int k = 0; k < WideNode::kWidth; ++k) {  // the root's slots all unused, their boxes zero
    poke(nodes_ + offsetof(WideNode, child) + k * sizeof(std::uint32_t), WideNode::kEmpty);
    for (std::size_t row = 0; row < 6; ++row) poke(nodes_ + (row * WideNode::kWidth + k) * sizeof(float), 0.f);
  }
  EXPECT_EQ(refusal_after_resealing(), path_ + ": BVH node 0 has no child");
}

// Links name a triangle in bits_for(triangles) bits (the next two: a seam edge, a flat vertex): one
// past the mesh is refused, with or without those bits; so is a bit set in the padding after the
// last link.
TEST_F(SnapshotMeaning, ALinkOutOfRangeOrPaddingIsRefused) {
  const auto past = std::uint64_t(world_.triangle_count());
  const std::uint32_t index_bits = link_bits_ - 2;
  ASSERT_LT(past, (std::uint64_t(1) << index_bits) - 1) << "one past the mesh is not the all-ones none";
  const std::vector<unsigned char> unedited = bytes_;
  for (std::uint64_t high : {std::uint64_t(0), std::uint64_t(1) << index_bits, std::uint64_t(3) << index_bits}) {
    // Value 4 (triangle 1, edge 1), link_bits_ wide, at its bit offset in the little-endian words.
    const std::uint64_t bit = 4 * link_bits_, mask = ((std::uint64_t(1) << link_bits_) - 1) << (bit % 8);
    std::uint64_t word;
    std::memcpy(&word, bytes_.data() + links_ + bit / 8, 8);
    word = (word & ~mask) | (past | high) << (bit % 8);
    poke(links_ + bit / 8, word);
    EXPECT_EQ(refusal_after_resealing(), path_ + ": triangle 1 links out of range");
  }
  bytes_ = unedited;
  const std::uint64_t after = 3 * world_.triangle_count() * link_bits_;  // the first bit after the links
  bytes_[links_ + after / 8] |= std::uint8_t(1u << (after % 8));
  EXPECT_EQ(refusal_after_resealing(), path_ + ": the links' padding is not zero");
}

TEST_F(SnapshotMeaning, ATriangleOnNoLayerIsRefused) {
  poke(layers_ + 7 * sizeof(std::uint32_t), std::uint32_t(0));
  EXPECT_EQ(refusal_after_resealing(), path_ + ": triangle 7 is on no layer (mask 0)");
}

TEST_F(SnapshotMeaning, LayersThatAreNotTheUnionBelowAreRefused) {
  // Triangle 7 moved to layer 2 without its nodes knowing: a walk on layer 2 would skip it.
  poke(layers_ + 7 * sizeof(std::uint32_t), std::uint32_t(2));
  const std::string why = refusal_after_resealing();
  EXPECT_NE(why.find(": BVH node "), std::string::npos) << why;
  EXPECT_NE(why.find(" are not those below it"), std::string::npos) << why;
  // A child claiming a layer nothing below it is on: a walk on that layer would enter it.
  bytes_ = read_bytes(path_);
  save_snapshot(world_, "@arena", path_);
  bytes_ = read_bytes(path_);
  poke(child_layers_ + 1 * sizeof(std::uint32_t), std::uint32_t(1 | 4));
  EXPECT_EQ(refusal_after_resealing(), path_ + ": BVH node 0: the layers of child 1 are not those below it");
}

TEST_F(SnapshotMeaning, ALoadedWorldIgnoresItsFileBeingOverwrittenOrCutShort) {
  const Snapshot snapshot = load_snapshot(path_);
  const std::vector<SweepQuery> queries = make_workload(world_, Workload::validate, 3000, 4);
  std::vector<SweepHit> before(queries.size()), after(queries.size());
  snapshot.world.sweep(queries, before);
  // An operator copies another build over the served file in place, then it is truncated.
  std::vector<unsigned char> other = bytes_;
  for (std::size_t i = 128; i < other.size(); ++i) other[i] = static_cast<unsigned char>(i * 7);
  write_bytes(path_, other);
  snapshot.world.sweep(queries, after);
  for (std::size_t i = 0; i < queries.size(); ++i) ASSERT_TRUE(identical(before[i], after[i])) << i;
  ASSERT_EQ(::truncate(path_.c_str(), 100), 0);
  snapshot.world.sweep(queries, after);
  for (std::size_t i = 0; i < queries.size(); ++i) ASSERT_TRUE(identical(before[i], after[i])) << i;
  // And the built world agrees with it.
  world_.sweep(queries, after);
  for (std::size_t i = 0; i < queries.size(); ++i) ASSERT_TRUE(identical(before[i], after[i])) << i;
}

}  // namespace
