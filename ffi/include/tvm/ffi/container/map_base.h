/*
 * The hash-map object shared by Map (type index 72, copy-on-write) and Dict (76, mutable).
 *
 * Everything in this file is ABI: modules built with the reference headers look up, insert,
 * erase and iterate maps we create with their own inline code, and we do the same to theirs.
 * Layout (offsets from the object handle):
 *
 *   +24 void* data_    +32 uint64 size_    +40 uint64 slots_    +48 void (*data_deleter_)(void*)
 *
 * Small layout (bit 63 of slots_ set, capacity = low bits, 2..4): up to `capacity` KV pairs
 * {Any key; Any value} (32 bytes) in insertion order, normally inline at +56 (data_ = handle+56,
 * data_deleter_ NULL). Lookup is a linear scan. Every small allocation has room for at least two
 * pairs (>= 120 bytes) so that a Dict can turn itself into the dense layout in place.
 *
 * Dense layout (bit 63 clear, slots_ = power-of-two slot count) adds
 *
 *   +56 uint32 fib_shift   +64 uint64 iter_head   +72 uint64 iter_tail
 *
 * and data_ points at ceil(slots/16) blocks of 784 bytes: 16 metadata bytes, then 16 items of
 * {KV; uint64 prev; uint64 next} (48 bytes). prev/next thread all live items in insertion order.
 * Metadata: 0xFF empty, 0xFE protected (empty but reserved during a move), else bit 7 clear =
 * head of a chain, set = later member; bits 0..6 index kJumpDistances (0 = end of chain).
 * A key's home slot is (hash * 11400714819323198485) >> fib_shift; the chain that starts at the
 * home slot holds exactly the keys with that home, so lookup never probes beyond one chain.
 *
 * Deleting a map object of either layout: destroy the live pairs, then hand data_ to
 * data_deleter_ when both are set. Each binary frees only memory it allocated, via the deleter
 * pointer that travels with the memory.
 */
#ifndef TVM_FFI_CONTAINER_MAP_BASE_H_
#define TVM_FFI_CONTAINER_MAP_BASE_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/seq_base.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {

namespace details {

/*!
 * \brief A lookup key in the form maps store keys. Borrowed C strings and byte arrays become
 * String/Bytes (they hash by content, a raw pointer would not), an rvalue-ref is looked through.
 */
class MapLookupKey {
 public:
  explicit MapLookupKey(const AnyView& key) {
    const TVMFFIAny* v = key.raw();
    if (v->type_index == kTVMFFIRawStr || v->type_index == kTVMFFIByteArrayPtr) {
      owned_ = Any(key);
      raw_ = *owned_.raw();
    } else if (v->type_index == kTVMFFIObjectRValueRef) {
      TVMFFIObject* obj = *static_cast<TVMFFIObject**>(v->v_ptr);
      InitNone(&raw_);
      if (obj != nullptr) {
        raw_.type_index = obj->type_index;
        raw_.v_obj = obj;
      }
    } else {
      raw_ = *v;
    }
  }
  const TVMFFIAny* raw() const { return &raw_; }

 private:
  Any owned_;
  TVMFFIAny raw_;
};

}  // namespace details

/*! \brief Base of MapObj and DictObj (no type index of its own). */
class MapBaseObj : public Object {
 public:
  using KVType = std::pair<Any, Any>;
  static_assert(sizeof(KVType) == 32, "a map entry is two TVMFFIAny");

  class iterator;

  MapBaseObj() = default;
  MapBaseObj(const MapBaseObj&) = delete;
  ~MapBaseObj() {
    DestroyEntries();
    if (data_ != nullptr && data_deleter_ != nullptr) data_deleter_(data_);
  }

  // ---- queries (any layout, any creator) ----
  size_t size() const { return static_cast<size_t>(size_); }
  bool empty() const { return size_ == 0; }
  size_t count(const AnyView& key) const { return Find(key) != kNotFound ? 1 : 0; }
  /*! \brief The value stored for `key` (KeyError when absent). */
  const Any& at(const AnyView& key) const { return EntryAt(FindOrThrow(key)).second; }
  Any& at(const AnyView& key) { return EntryAt(FindOrThrow(key)).second; }
  iterator find(const AnyView& key) const;
  iterator begin() const;
  iterator end() const;

  // ---- in-place mutation (callers own the object exclusively, or it is a Dict) ----
  void erase(const iterator& position);
  void erase(const AnyView& key);
  /*! \brief Removes every entry, keeping the layout and storage. */
  void clear();

  // ---- inspection (tests, debugging) ----
  bool IsSmallLayout() const { return (slots_ & kSmallBit) != 0; }
  /*! \brief Small: capacity; dense: number of slots. */
  uint64_t NumSlots() const { return slots_ & ~kSmallBit; }
  uint32_t DenseFibShift() const { return Dense()->fib_shift; }
  /*! \brief Home slot of a hash in a dense table with the given shift. */
  static uint64_t FibHash(uint64_t hash, uint32_t fib_shift) {
    return (hash * kFibMultiplier) >> fib_shift;
  }

  // ---- construction and growth, shared by Map and Dict ----
  /*! \brief An empty small map of MapObjType with room for `capacity` (>= 2) pairs. */
  template <typename MapObjType>
  static ObjectPtr<Object> Empty(uint64_t capacity = kSmallMinCapacity);
  /*!
   * \brief A map holding the pairs of [first, last) (*first converts to KVType; later duplicates
   * win). Fewer than 4 pairs give the small layout, 4 or more the dense one.
   */
  template <typename MapObjType, typename Iter>
  static ObjectPtr<Object> CreateFromRange(Iter first, Iter last);
  /*! \brief A copy of `from` (same layout and order), typed MapObjType. */
  template <typename MapObjType>
  static ObjectPtr<Object> CopyFrom(const MapBaseObj* from);
  /*!
   * \brief Inserts or overwrites `kv` in `map` (which the caller may mutate). Returns NULL when
   * done in place, else the replacement map holding all entries (the old one is left empty).
   */
  template <typename MapObjType>
  static ObjectPtr<Object> InsertMaybeReHash(KVType&& kv, const ObjectPtr<Object>& map);
  /*!
   * \brief Makes this object take over `other`'s contents (Dict growth). This object's
   * entries are dropped first; `other` is left empty (or kept alive by this object when its
   * inline small storage is now ours).
   */
  void InplaceSwitchTo(ObjectPtr<Object>&& other);

 protected:
  static constexpr uint64_t kSmallBit = uint64_t{1} << 63;
  static constexpr uint64_t kSmallMinCapacity = 2;
  static constexpr uint64_t kSmallMaxCapacity = 4;
  static constexpr uint64_t kNotFound = std::numeric_limits<uint64_t>::max();
  static constexpr uint64_t kFibMultiplier = 11400714819323198485ULL;
  static constexpr uint64_t kBlockSlots = 16;
  static constexpr uint8_t kEmptySlot = 0xFF;
  static constexpr uint8_t kProtectedSlot = 0xFE;
  static constexpr uint8_t kChainBodyBit = 0x80;
  static constexpr uint8_t kJumpMask = 0x7F;
  static constexpr int kNumJumps = 126;
  static constexpr double kMaxLoadFactor = 0.99;

  /*! \brief Extra fields of the dense layout, right after the common ones (+56). */
  struct DenseFields {
    uint32_t fib_shift;
    uint32_t padding;
    uint64_t iter_head;
    uint64_t iter_tail;
  };
  /*! \brief One dense slot's payload. */
  struct Item {
    KVType kv;
    uint64_t prev;
    uint64_t next;
  };
  static_assert(sizeof(Item) == 48, "dense items are 48 bytes");
  static constexpr size_t kBlockBytes = kBlockSlots + kBlockSlots * sizeof(Item);  // 784

  // ---- the ABI fields ----
  void* data_ = nullptr;
  uint64_t size_ = 0;
  uint64_t slots_ = 0;
  void (*data_deleter_)(void*) = nullptr;

  // ---- layout helpers ----
  DenseFields* Dense() const {
    return reinterpret_cast<DenseFields*>(
        reinterpret_cast<char*>(const_cast<MapBaseObj*>(this)) + sizeof(MapBaseObj));
  }
  KVType* SmallData() const { return static_cast<KVType*>(data_); }
  uint8_t& Meta(uint64_t slot) const {
    return static_cast<uint8_t*>(data_)[(slot / kBlockSlots) * kBlockBytes + slot % kBlockSlots];
  }
  Item& ItemAt(uint64_t slot) const {
    char* block = static_cast<char*>(data_) + (slot / kBlockSlots) * kBlockBytes;
    return *reinterpret_cast<Item*>(block + kBlockSlots + (slot % kBlockSlots) * sizeof(Item));
  }
  static bool IsLive(uint8_t meta) { return meta != kEmptySlot && meta != kProtectedSlot; }
  static bool IsChainHead(uint8_t meta) { return (meta & kChainBodyBit) == 0; }
  /*! \brief Entry at an iterator position (small: array index; dense: slot). */
  KVType& EntryAt(uint64_t pos) const {
    return IsSmallLayout() ? SmallData()[pos] : ItemAt(pos).kv;
  }

  /*!
   * \brief Probe distances a chain link may encode: 0..15, then triangular numbers, then a sparse
   * tail of larger triangular numbers (index 125 is never used and reads as 0).
   */
  static uint64_t JumpDistance(int idx) {
    static const uint64_t kJumpDistances[kNumJumps] = {
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
        21, 28, 36, 45, 55, 66, 78, 91, 105, 120, 136, 153, 171, 190, 210, 231, 253, 276, 300,
        325, 351, 378, 406, 435, 465, 496, 528, 561, 595, 630, 666, 703, 741, 780, 820, 861, 903,
        946, 990, 1035, 1081, 1128, 1176, 1225, 1275, 1326, 1378, 1431, 1485, 1540, 1596, 1653,
        1711, 1770, 1830, 1891, 1953, 2016, 2080, 2145, 2211, 2278, 2346, 2415, 2485, 2556, 2628,
        8515ULL, 19110ULL, 42778ULL, 96141ULL, 216153ULL, 486591ULL, 1092981ULL, 2458653ULL,
        5532801ULL, 12442566ULL, 27993903ULL, 62983476ULL, 141717030ULL, 318844378ULL,
        717352503ULL, 1614057336ULL, 3631522476ULL, 8170957530ULL, 18384510628ULL,
        41364789378ULL, 93070452520ULL, 209408356380ULL, 471168559170ULL, 1060128894105ULL,
        2385289465695ULL, 5366898840628ULL, 12075518705635ULL, 27169915244790ULL,
        61132312065111ULL, 137547689707000ULL, 309482283181501ULL, 696335127828753ULL,
        1566753995631385ULL, 3525196511162271ULL, 7931691992677701ULL, 17846306936293605ULL,
        40154190677507445ULL, 90346928918121501ULL, 203280589587557251ULL,
        457381325854679626ULL, 1029107982097042876ULL, 2315492959180353330ULL,
        5209859154120846435ULL};
    return kJumpDistances[idx];
  }

  // ---- lookup ----
  uint64_t Find(const AnyView& key) const {
    details::MapLookupKey k(key);
    return IsSmallLayout() ? SmallFind(k.raw()) : DenseFind(k.raw());
  }
  uint64_t FindOrThrow(const AnyView& key) const {
    uint64_t pos = Find(key);
    if (pos == kNotFound) TVM_FFI_THROW(KeyError) << "key is not in Map";
    return pos;
  }
  uint64_t SmallFind(const TVMFFIAny* key) const {
    for (uint64_t i = 0; i < size_; ++i) {
      if (details::AnyEqual(SmallData()[i].first.raw(), key)) return i;
    }
    return kNotFound;
  }
  uint64_t HomeSlot(const TVMFFIAny* key) const {
    return FibHash(details::AnyHash(key), Dense()->fib_shift);
  }
  /*! \brief Next slot of the chain given the slot's metadata, or kNotFound at its end. */
  uint64_t ChainNext(uint64_t slot, uint8_t meta) const {
    uint64_t dist = JumpDistance(meta & kJumpMask);
    return dist == 0 ? kNotFound : (slot + dist) % slots_;
  }
  uint64_t ChainNext(uint64_t slot) const { return ChainNext(slot, Meta(slot)); }
  uint64_t DenseFind(const TVMFFIAny* key) const {
    if (size_ == 0) return kNotFound;
    uint64_t slot = HomeSlot(key);
    if (!IsChainHead(Meta(slot))) return kNotFound;  // empty/protected also have bit 7 set
    for (; slot != kNotFound; slot = ChainNext(slot)) {
      if (details::AnyEqual(key, ItemAt(slot).kv.first.raw())) return slot;
    }
    return kNotFound;
  }

  // ---- small layout ----
  template <typename MapObjType, typename Iter>
  static ObjectPtr<Object> SmallFromRange(uint64_t capacity, Iter first, Iter last);
  template <typename MapObjType>
  static ObjectPtr<Object> SmallInsert(KVType&& kv, const ObjectPtr<Object>& map);
  void SmallErase(uint64_t index) {
    if (index >= size_) return;
    KVType* data = SmallData();
    data[index].~KVType();
    // Later pairs slide down bitwise (Anys relocate trivially), keeping insertion order.
    std::memmove(static_cast<void*>(data + index), static_cast<void*>(data + index + 1),
                 static_cast<size_t>(size_ - index - 1) * sizeof(KVType));
    --size_;
  }

  // ---- dense layout ----
  enum class InsertResult { kNew, kExisting, kNeedRehash };
  static void CalcTableSize(uint64_t capacity, uint32_t* fib_shift, uint64_t* slots);
  template <typename MapObjType>
  static ObjectPtr<Object> DenseEmpty(uint32_t fib_shift, uint64_t slots);
  template <typename MapObjType>
  static ObjectPtr<Object> DenseInsert(KVType&& kv, const ObjectPtr<Object>& map);
  static void FreeBlocks(void* data) { ::operator delete(data); }
  bool IsFull() const {
    return static_cast<double>(size_ + 1) > static_cast<double>(slots_) * kMaxLoadFactor;
  }
  void SetJump(uint64_t slot, uint8_t jump) {
    Meta(slot) = static_cast<uint8_t>((Meta(slot) & kChainBodyBit) | jump);
  }
  /*! \brief Constructs an item in an empty slot; `meta` says head (0) or body (0x80). */
  void PlaceItem(uint64_t slot, uint8_t meta, KVType&& kv) {
    Meta(slot) = meta;
    new (&ItemAt(slot)) Item{std::move(kv), kNotFound, kNotFound};
  }
  void DestroyItem(uint64_t slot) { ItemAt(slot).kv.~KVType(); }
  /*! \brief First empty slot reachable from `slot` by one jump. */
  bool FindEmptyAfter(uint64_t slot, uint8_t* jump, uint64_t* empty) const {
    for (int idx = 1; idx < kNumJumps; ++idx) {
      uint64_t candidate = (slot + JumpDistance(idx)) % slots_;
      if (Meta(candidate) == kEmptySlot) {
        *jump = static_cast<uint8_t>(idx);
        *empty = candidate;
        return true;
      }
    }
    return false;
  }
  /*! \brief The chain member linking to `slot` (which must not be a head). */
  uint64_t ChainPrev(uint64_t slot) const {
    uint64_t prev = HomeSlot(ItemAt(slot).kv.first.raw());
    for (uint64_t next = ChainNext(prev); next != slot; next = ChainNext(next)) prev = next;
    return prev;
  }
  // Insertion-order list.
  void OrderUnlink(uint64_t slot) {
    Item& it = ItemAt(slot);
    if (it.prev == kNotFound) {
      Dense()->iter_head = it.next;
    } else {
      ItemAt(it.prev).next = it.next;
    }
    if (it.next == kNotFound) {
      Dense()->iter_tail = it.prev;
    } else {
      ItemAt(it.next).prev = it.prev;
    }
  }
  void OrderPushBack(uint64_t slot) {
    Item& it = ItemAt(slot);
    it.prev = Dense()->iter_tail;
    it.next = kNotFound;
    if (Dense()->iter_tail != kNotFound) ItemAt(Dense()->iter_tail).next = slot;
    if (Dense()->iter_head == kNotFound) Dense()->iter_head = slot;
    Dense()->iter_tail = slot;
  }
  /*! \brief Puts slot `to` where `from` is in the order list (`from`'s links are kept). */
  void OrderReplace(uint64_t from, uint64_t to) {
    Item& dst = ItemAt(to);
    dst.prev = ItemAt(from).prev;
    dst.next = ItemAt(from).next;
    if (dst.prev == kNotFound) {
      Dense()->iter_head = to;
    } else {
      ItemAt(dst.prev).next = to;
    }
    if (dst.next == kNotFound) {
      Dense()->iter_tail = to;
    } else {
      ItemAt(dst.next).prev = to;
    }
  }
  InsertResult DenseTryInsert(KVType* kv, uint64_t* out);
  bool DenseSpareHead(uint64_t target, KVType* kv, uint64_t* out);
  void DenseErase(uint64_t slot);
  void DenseClear();
  /*! \brief Frees the blocks without touching entries (they were moved out or destroyed). */
  void DenseReleaseMemory() {
    if (data_ != nullptr && data_deleter_ != nullptr) data_deleter_(data_);
    data_ = nullptr;
    data_deleter_ = nullptr;
    slots_ = 0;
    size_ = 0;
    Dense()->fib_shift = 63;
  }
  void DestroyEntries();
  /*!
   * \brief data_deleter_ of a small map whose pairs live inline in another map object: that
   * object (right before the pairs) is kept alive by us and released here.
   */
  static void ReleaseInlineOwner(void* data) {
    details::ObjectUnsafe::DecRef(
        reinterpret_cast<Object*>(static_cast<char*>(data) - sizeof(MapBaseObj)));
  }
};

static_assert(sizeof(MapBaseObj) == 56, "map header is 56 bytes");

/*! \brief Position in a map: array index (small) or slot (dense). Yields KVType&. */
class MapBaseObj::iterator {
 public:
  using iterator_category = std::bidirectional_iterator_tag;
  using value_type = KVType;
  using difference_type = std::ptrdiff_t;
  using pointer = KVType*;
  using reference = KVType&;

  iterator() = default;
  iterator(uint64_t index, const MapBaseObj* self) : index_(index), self_(self) {}

  KVType& operator*() const { return self_->EntryAt(index_); }
  KVType* operator->() const { return &self_->EntryAt(index_); }
  iterator& operator++() {
    if (self_->IsSmallLayout()) {
      index_ = index_ + 1 < self_->size_ ? index_ + 1 : self_->size_;
    } else if (index_ != kNotFound) {
      index_ = self_->ItemAt(index_).next;
    }
    return *this;
  }
  iterator& operator--() {
    if (self_->IsSmallLayout()) {
      index_ = index_ > 0 ? index_ - 1 : self_->size_;
    } else {
      index_ = index_ == kNotFound ? self_->Dense()->iter_tail : self_->ItemAt(index_).prev;
    }
    return *this;
  }
  iterator operator++(int) {
    iterator out = *this;
    ++*this;
    return out;
  }
  iterator operator--(int) {
    iterator out = *this;
    --*this;
    return out;
  }
  bool operator==(const iterator& other) const {
    return index_ == other.index_ && self_ == other.self_;
  }
  bool operator!=(const iterator& other) const { return !(*this == other); }
  uint64_t index() const { return index_; }

 private:
  uint64_t index_ = 0;
  const MapBaseObj* self_ = nullptr;
  friend class MapBaseObj;
};

inline MapBaseObj::iterator MapBaseObj::begin() const {
  if (IsSmallLayout()) return iterator(0, this);
  return iterator(size_ == 0 ? kNotFound : Dense()->iter_head, this);
}
inline MapBaseObj::iterator MapBaseObj::end() const {
  return iterator(IsSmallLayout() ? size_ : kNotFound, this);
}
inline MapBaseObj::iterator MapBaseObj::find(const AnyView& key) const {
  uint64_t pos = Find(key);
  return pos == kNotFound ? end() : iterator(pos, this);
}

inline void MapBaseObj::erase(const iterator& position) {
  if (position.self_ != this) return;
  if (IsSmallLayout()) {
    SmallErase(position.index_);
  } else if (position.index_ < slots_ && IsLive(Meta(position.index_))) {
    DenseErase(position.index_);
  }
}
inline void MapBaseObj::erase(const AnyView& key) { erase(find(key)); }

inline void MapBaseObj::clear() {
  if (IsSmallLayout()) {
    DestroyEntries();
    size_ = 0;
  } else {
    DenseClear();
  }
}

inline void MapBaseObj::DestroyEntries() {
  if (IsSmallLayout()) {
    KVType* data = SmallData();
    for (uint64_t i = size_; i > 0; --i) data[i - 1].~KVType();
  } else if (data_ != nullptr) {
    for (uint64_t slot = 0; slot < slots_; ++slot) {
      if (IsLive(Meta(slot))) DestroyItem(slot);
    }
  }
}

inline void MapBaseObj::DenseClear() {
  if (data_ != nullptr) {
    for (uint64_t slot = 0; slot < slots_; ++slot) {
      if (IsLive(Meta(slot))) {
        DestroyItem(slot);
        Meta(slot) = kEmptySlot;
      }
    }
  }
  size_ = 0;
  Dense()->iter_head = kNotFound;
  Dense()->iter_tail = kNotFound;
}

// ------------------------------------------------------------------------------------------
// Small layout
// ------------------------------------------------------------------------------------------

template <typename MapObjType>
inline ObjectPtr<Object> MapBaseObj::Empty(uint64_t capacity) {
  static_assert(std::is_base_of_v<MapBaseObj, MapObjType> &&
                    sizeof(MapObjType) == sizeof(MapBaseObj),
                "map objects share one layout");
  // Even a 2-pair allocation (120 bytes) holds the dense fields (80), so a Dict can switch in
  // place.
  static_assert(sizeof(MapBaseObj) + kSmallMinCapacity * sizeof(KVType) >=
                sizeof(MapBaseObj) + sizeof(DenseFields));
  capacity = std::max(capacity, kSmallMinCapacity);
  ObjectPtr<MapObjType> p = make_inplace_array_object<MapObjType, KVType>(capacity);
  p->data_ = reinterpret_cast<char*>(p.get()) + sizeof(MapBaseObj);
  p->size_ = 0;
  p->slots_ = capacity | kSmallBit;
  p->data_deleter_ = nullptr;
  return ObjectPtr<Object>(std::move(p));
}

template <typename MapObjType, typename Iter>
inline ObjectPtr<Object> MapBaseObj::SmallFromRange(uint64_t capacity, Iter first, Iter last) {
  ObjectPtr<Object> p = Empty<MapObjType>(capacity);
  MapBaseObj* m = static_cast<MapBaseObj*>(p.get());
  for (; first != last; ++first) {
    new (m->SmallData() + m->size_) KVType(*first);
    ++m->size_;
  }
  return p;
}

template <typename MapObjType>
inline ObjectPtr<Object> MapBaseObj::SmallInsert(KVType&& kv, const ObjectPtr<Object>& map) {
  MapBaseObj* m = static_cast<MapBaseObj*>(map.get());
  uint64_t pos = m->SmallFind(kv.first.raw());
  if (pos != kNotFound) {  // overwrite: the original key object and position stay
    m->SmallData()[pos].second = std::move(kv.second);
    return ObjectPtr<Object>(nullptr);
  }
  if (m->size_ < m->NumSlots()) {
    new (m->SmallData() + m->size_) KVType(std::move(kv));
    ++m->size_;
    return ObjectPtr<Object>(nullptr);
  }
  // Full: a new small map with double the room (2 -> 4), holding copies of the pairs.
  uint64_t capacity = std::min(std::max(m->NumSlots() * 2, kSmallMinCapacity), kSmallMaxCapacity);
  ObjectPtr<Object> grown =
      SmallFromRange<MapObjType>(capacity, m->SmallData(), m->SmallData() + m->size_);
  ObjectPtr<Object> again = SmallInsert<MapObjType>(std::move(kv), grown);
  return again != nullptr ? again : grown;
}

// ------------------------------------------------------------------------------------------
// Dense layout
// ------------------------------------------------------------------------------------------

inline void MapBaseObj::CalcTableSize(uint64_t capacity, uint32_t* fib_shift, uint64_t* slots) {
  // Smallest power of two above `capacity`, doubled when that leaves less than 2x headroom.
  uint32_t shift = 64;
  uint64_t n = 1;
  for (uint64_t c = capacity; c != 0; c >>= 1) {
    --shift;
    n <<= 1;
  }
  if (n < capacity * 2) {
    *fib_shift = shift - 1;
    *slots = n << 1;
  } else {
    *fib_shift = shift;
    *slots = n;
  }
}

template <typename MapObjType>
inline ObjectPtr<Object> MapBaseObj::DenseEmpty(uint32_t fib_shift, uint64_t slots) {
  static_assert(std::is_base_of_v<MapBaseObj, MapObjType> &&
                sizeof(MapObjType) == sizeof(MapBaseObj));
  ObjectPtr<MapObjType> p = make_inplace_array_object<MapObjType, DenseFields>(1);
  uint64_t n_blocks = (slots + kBlockSlots - 1) / kBlockSlots;
  char* blocks = static_cast<char*>(::operator new(n_blocks * kBlockBytes));
  for (uint64_t b = 0; b < n_blocks; ++b) {
    std::memset(blocks + b * kBlockBytes, kEmptySlot, kBlockSlots);  // items stay raw
  }
  p->data_ = blocks;
  p->data_deleter_ = FreeBlocks;
  p->size_ = 0;
  p->slots_ = slots;
  DenseFields* d = p->Dense();
  d->fib_shift = fib_shift;
  d->padding = 0;
  d->iter_head = kNotFound;
  d->iter_tail = kNotFound;
  return ObjectPtr<Object>(std::move(p));
}

/*!
 * Places kv's key: a new chain head at its home slot, or appended to the chain there. An
 * existing equal key is reused (and taken out of the order list: the caller re-appends it, so
 * overwriting moves a key to the end of the iteration order, as the reference does).
 */
inline MapBaseObj::InsertResult MapBaseObj::DenseTryInsert(KVType* kv, uint64_t* out) {
  if (slots_ == 0) return InsertResult::kNeedRehash;
  uint64_t slot = HomeSlot(kv->first.raw());
  uint8_t meta = Meta(slot);
  if (meta == kEmptySlot) {
    PlaceItem(slot, 0, KVType(std::move(kv->first), Any()));
    ++size_;
    *out = slot;
    return InsertResult::kNew;
  }
  if (!IsChainHead(meta)) {
    // The home slot is borrowed by another chain: move that chain's tail away first.
    if (IsFull()) return InsertResult::kNeedRehash;
    return DenseSpareHead(slot, kv, out) ? InsertResult::kNew : InsertResult::kNeedRehash;
  }
  uint64_t tail = slot;
  for (uint64_t cur = slot; cur != kNotFound; cur = ChainNext(cur)) {
    if (details::AnyEqual(kv->first.raw(), ItemAt(cur).kv.first.raw())) {
      OrderUnlink(cur);
      *out = cur;
      return InsertResult::kExisting;
    }
    tail = cur;
  }
  if (IsFull()) return InsertResult::kNeedRehash;
  uint8_t jump;
  uint64_t empty;
  if (!FindEmptyAfter(tail, &jump, &empty)) return InsertResult::kNeedRehash;
  PlaceItem(empty, kChainBodyBit, KVType(std::move(kv->first), Any()));
  SetJump(tail, jump);
  ++size_;
  *out = empty;
  return InsertResult::kNew;
}

/*!
 * `target` (the new key's home) holds a member of another chain. Relocate that member and every
 * later member of its chain to fresh slots linked after its predecessor, then start the new
 * chain at `target`. `target` stays protected during the move so no relocated item lands there.
 * Returns false (table needs to grow) when no free slot is reachable; items moved so far stay
 * valid and threaded in the order list, which is all a rehash needs.
 */
inline bool MapBaseObj::DenseSpareHead(uint64_t target, KVType* kv, uint64_t* out) {
  uint64_t write = ChainPrev(target);
  uint64_t read = target;
  bool first = true;
  while (read != kNotFound) {
    uint8_t jump;
    uint64_t empty;
    if (!FindEmptyAfter(write, &jump, &empty)) return false;
    PlaceItem(empty, kChainBodyBit, std::move(ItemAt(read).kv));
    OrderReplace(read, empty);
    DestroyItem(read);
    uint8_t read_meta = Meta(read);
    Meta(read) = first ? kProtectedSlot : kEmptySlot;
    first = false;
    SetJump(write, jump);
    write = empty;
    read = ChainNext(read, read_meta);
  }
  PlaceItem(target, 0, KVType(std::move(kv->first), Any()));
  ++size_;
  *out = target;
  return true;
}

/*! Removes one item; the chain's last member fills the hole so chains stay contiguous. */
inline void MapBaseObj::DenseErase(uint64_t slot) {
  --size_;
  if (ChainNext(slot) == kNotFound) {
    if (!IsChainHead(Meta(slot))) SetJump(ChainPrev(slot), 0);
    OrderUnlink(slot);
    DestroyItem(slot);
    Meta(slot) = kEmptySlot;
    return;
  }
  uint64_t prev = slot;
  uint64_t last = ChainNext(slot);
  for (uint64_t next = ChainNext(last); next != kNotFound; next = ChainNext(last)) {
    prev = last;
    last = next;
  }
  OrderUnlink(slot);
  ItemAt(slot).kv = std::move(ItemAt(last).kv);
  OrderReplace(last, slot);
  DestroyItem(last);
  Meta(last) = kEmptySlot;
  SetJump(prev, 0);
}

template <typename MapObjType>
inline ObjectPtr<Object> MapBaseObj::DenseInsert(KVType&& kv, const ObjectPtr<Object>& map) {
  MapBaseObj* m = static_cast<MapBaseObj*>(map.get());
  uint64_t slot;
  if (m->DenseTryInsert(&kv, &slot) != InsertResult::kNeedRehash) {
    m->ItemAt(slot).kv.second = std::move(kv.second);
    m->OrderPushBack(slot);
    return ObjectPtr<Object>(nullptr);
  }
  // Double the table and re-insert everything in iteration order, then the new pair.
  // (A released table, slots_ == 0, restarts at 2 slots rather than doubling zero.)
  ObjectPtr<Object> grown =
      m->slots_ == 0 ? DenseEmpty<MapObjType>(63, 2)
                     : DenseEmpty<MapObjType>(m->Dense()->fib_shift - 1, m->slots_ * 2);
  for (uint64_t pos = m->Dense()->iter_head; pos != kNotFound;) {
    uint64_t next = m->ItemAt(pos).next;
    ObjectPtr<Object> again = DenseInsert<MapObjType>(std::move(m->ItemAt(pos).kv), grown);
    if (again != nullptr) grown = std::move(again);
    m->DestroyItem(pos);
    pos = next;
  }
  ObjectPtr<Object> again = DenseInsert<MapObjType>(std::move(kv), grown);
  if (again != nullptr) grown = std::move(again);
  m->DenseReleaseMemory();
  return grown;
}

// ------------------------------------------------------------------------------------------
// Layout-independent construction
// ------------------------------------------------------------------------------------------

template <typename MapObjType, typename Iter>
inline ObjectPtr<Object> MapBaseObj::CreateFromRange(Iter first, Iter last) {
  int64_t n = static_cast<int64_t>(std::distance(first, last));
  if (n < static_cast<int64_t>(kSmallMinCapacity)) {
    return SmallFromRange<MapObjType>(static_cast<uint64_t>(std::max<int64_t>(n, 0)), first, last);
  }
  ObjectPtr<Object> out;
  if (n < static_cast<int64_t>(kSmallMaxCapacity)) {
    out = Empty<MapObjType>(static_cast<uint64_t>(n));
  } else {
    uint32_t fib_shift;
    uint64_t slots;
    CalcTableSize(static_cast<uint64_t>(n), &fib_shift, &slots);
    out = DenseEmpty<MapObjType>(fib_shift, slots);
  }
  for (; first != last; ++first) {
    ObjectPtr<Object> again = InsertMaybeReHash<MapObjType>(KVType(*first), out);
    if (again != nullptr) out = std::move(again);
  }
  return out;
}

template <typename MapObjType>
inline ObjectPtr<Object> MapBaseObj::CopyFrom(const MapBaseObj* from) {
  if (from->IsSmallLayout()) {
    // The copy is sized to the content (at least 2), not to the source's capacity.
    return SmallFromRange<MapObjType>(from->size_, from->SmallData(),
                                      from->SmallData() + from->size_);
  }
  ObjectPtr<Object> p = DenseEmpty<MapObjType>(from->Dense()->fib_shift, from->slots_);
  MapBaseObj* to = static_cast<MapBaseObj*>(p.get());
  for (uint64_t slot = 0; slot < from->slots_; ++slot) {
    uint8_t meta = from->Meta(slot);
    if (!IsLive(meta)) continue;
    to->Meta(slot) = meta;
    const Item& src = from->ItemAt(slot);
    new (&to->ItemAt(slot)) Item{src.kv, src.prev, src.next};
  }
  to->size_ = from->size_;
  to->Dense()->iter_head = from->Dense()->iter_head;
  to->Dense()->iter_tail = from->Dense()->iter_tail;
  return p;
}

template <typename MapObjType>
inline ObjectPtr<Object> MapBaseObj::InsertMaybeReHash(KVType&& kv, const ObjectPtr<Object>& map) {
  MapBaseObj* m = static_cast<MapBaseObj*>(map.get());
  if (!m->IsSmallLayout()) return DenseInsert<MapObjType>(std::move(kv), map);
  if (m->NumSlots() < kSmallMaxCapacity || m->size_ < m->NumSlots()) {
    return SmallInsert<MapObjType>(std::move(kv), map);
  }
  // A full small map of the largest capacity becomes dense (even when overwriting a key, as in
  // the reference: the pair then moves to the end of the order).
  ObjectPtr<Object> dense =
      CreateFromRange<MapObjType>(m->SmallData(), m->SmallData() + m->size_);
  ObjectPtr<Object> again = DenseInsert<MapObjType>(std::move(kv), dense);
  return again != nullptr ? again : dense;
}

inline void MapBaseObj::InplaceSwitchTo(ObjectPtr<Object>&& other) {
  MapBaseObj* src = static_cast<MapBaseObj*>(other.get());
  // Drop our own entries and storage.
  if (IsSmallLayout()) {
    clear();
    if (data_ != nullptr && data_deleter_ != nullptr) data_deleter_(data_);
  } else {
    DenseClear();
    DenseReleaseMemory();
  }
  data_ = nullptr;
  data_deleter_ = nullptr;
  size_ = src->size_;
  slots_ = src->slots_;
  data_ = src->data_;
  if (src->IsSmallLayout()) {
    if (src->data_deleter_ != nullptr) {
      data_deleter_ = src->data_deleter_;
    } else {
      // The pairs live inside `src`: keep it alive until our storage is released.
      data_deleter_ = ReleaseInlineOwner;
      details::ObjectUnsafe::MoveToHandle(std::move(other));
    }
  } else {
    // Writes the dense fields over our inline area (every map allocation has room for them).
    data_deleter_ = src->data_deleter_;
    *Dense() = *src->Dense();
  }
  src->data_ = nullptr;
  src->data_deleter_ = nullptr;
  src->size_ = 0;
  src->slots_ = 0;
}

// ------------------------------------------------------------------------------------------
// Typed helpers shared by Map<K, V> and Dict<K, V>
// ------------------------------------------------------------------------------------------

namespace details {

/*! \brief Every stored pair is strictly a (K, V). */
template <typename K, typename V>
bool AllPairsStrict(const MapBaseObj* m) {
  if constexpr (std::is_same_v<K, Any> && std::is_same_v<V, Any>) {
    return true;
  } else {
    for (const auto& kv : *m) {
      if (!TypeTraits<K>::CheckAnyStrict(kv.first.raw())) return false;
      if (!TypeTraits<V>::CheckAnyStrict(kv.second.raw())) return false;
    }
    return true;
  }
}

/*! \brief Typed iterator over a map: yields std::pair<K, V> by value, in insertion order. */
template <typename K, typename V>
class MapIterator {
 public:
  using iterator_category = std::bidirectional_iterator_tag;
  using value_type = std::pair<K, V>;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = std::pair<K, V>;

  MapIterator() = default;
  explicit MapIterator(MapBaseObj::iterator it) : it_(it) {}

  std::pair<K, V> operator*() const {
    return std::pair<K, V>(StoredAs<K>(it_->first.raw()), StoredAs<V>(it_->second.raw()));
  }
  MapIterator& operator++() {
    ++it_;
    return *this;
  }
  MapIterator& operator--() {
    --it_;
    return *this;
  }
  MapIterator operator++(int) {
    MapIterator out = *this;
    ++it_;
    return out;
  }
  MapIterator operator--(int) {
    MapIterator out = *this;
    --it_;
    return out;
  }
  bool operator==(const MapIterator& other) const { return it_ == other.it_; }
  bool operator!=(const MapIterator& other) const { return it_ != other.it_; }
  /*! \brief The untyped position (key/value as Any). */
  const MapBaseObj::iterator& raw() const { return it_; }

 private:
  MapBaseObj::iterator it_;
};

/*! \brief Converts a typed range into the stored pairs (before any map is touched). */
template <typename K, typename V, typename Iter>
std::vector<MapBaseObj::KVType> ToStoredPairs(Iter first, Iter last) {
  std::vector<MapBaseObj::KVType> out;
  for (; first != last; ++first) {
    out.emplace_back(ToStored<K>((*first).first), ToStored<V>((*first).second));
  }
  return out;
}

/*!
 * \brief What Map<K, V> and Dict<K, V> share: the reference to a MapBaseObj of concrete type
 * `Obj`, construction from pairs, and every reading accessor. They differ only in how they
 * write (Map copies on write, Dict mutates the shared object), which each adds itself.
 */
template <typename Obj, typename K, typename V>
class MapRefBase : public ObjectRef {
 public:
  using key_type = K;
  using mapped_type = V;
  using iterator = MapIterator<K, V>;
  using const_iterator = iterator;

  size_t size() const { return ObjPtr() == nullptr ? 0 : ObjPtr()->size(); }
  bool empty() const { return size() == 0; }
  size_t count(const K& key) const { return ObjPtr() == nullptr ? 0 : ObjPtr()->count(AnyView(key)); }
  /*! \brief The value of `key` (KeyError when absent). */
  V at(const K& key) const {
    if (ObjPtr() == nullptr) TVM_FFI_THROW(KeyError) << "key is not in the map";
    return StoredAs<V>(ObjPtr()->at(AnyView(key)).raw());
  }
  V operator[](const K& key) const { return at(key); }
  std::optional<V> Get(const K& key) const {
    if (ObjPtr() == nullptr) return std::nullopt;
    MapBaseObj::iterator it = ObjPtr()->find(AnyView(key));
    if (it == ObjPtr()->end()) return std::nullopt;
    return StoredAs<V>(it->second.raw());
  }
  iterator find(const K& key) const {
    return ObjPtr() == nullptr ? iterator() : iterator(ObjPtr()->find(AnyView(key)));
  }
  iterator begin() const { return ObjPtr() == nullptr ? iterator() : iterator(ObjPtr()->begin()); }
  iterator end() const { return ObjPtr() == nullptr ? iterator() : iterator(ObjPtr()->end()); }

  const Obj* get() const { return ObjPtr(); }
  const Obj* operator->() const { return ObjPtr(); }

  using ContainerType = Obj;
  static constexpr bool _type_is_nullable = false;
  static constexpr bool _type_custom_traits = true;

 protected:
  MapRefBase() : ObjectRef(MapBaseObj::Empty<Obj>()) {}
  explicit MapRefBase(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  explicit MapRefBase(UnsafeInit tag) : ObjectRef(tag) {}
  /*! \brief From a range of pairs; later duplicates overwrite earlier ones. */
  template <typename Iter>
  MapRefBase(Iter first, Iter last) : ObjectRef(UnsafeInit{}) {
    std::vector<MapBaseObj::KVType> pairs = ToStoredPairs<K, V>(first, last);
    data_ = MapBaseObj::CreateFromRange<Obj>(std::make_move_iterator(pairs.begin()),
                                             std::make_move_iterator(pairs.end()));
  }
  Obj* ObjPtr() const { return static_cast<Obj*>(data_.get()); }
};

/*!
 * \brief Shared TypeTraits of Map<K, V> and Dict<K, V>: reuse the object when it has the
 * primary index and strictly typed pairs, else build a new one pair by pair (nullopt when a
 * pair does not convert).
 */
template <typename MapRef, typename K, typename V, int32_t kPrimary, int32_t kOther>
struct MapTraitsBase : ObjectRefTraitsBase<MapRef> {
  static const MapBaseObj* MapOf(const TVMFFIAny* v) {
    return static_cast<const MapBaseObj*>(ObjectUnsafe::FromHandle(v->v_obj));
  }
  static bool CheckAnyStrict(const TVMFFIAny* v) {
    return v->type_index == kPrimary && AllPairsStrict<K, V>(MapOf(v));
  }
  static std::optional<MapRef> TryCastFromAnyView(const TVMFFIAny* v) {
    if (v->type_index != kPrimary && v->type_index != kOther) return std::nullopt;
    const MapBaseObj* m = MapOf(v);
    if (v->type_index == kPrimary && AllPairsStrict<K, V>(m)) {
      return ObjectUnsafe::RefFromPtr<MapRef>(ObjectUnsafe::PtrFromUnowned<Object>(m));
    }
    MapRef out;
    for (const auto& kv : *m) {
      std::optional<K> key = TypeTraits<K>::TryCastFromAnyView(kv.first.raw());
      if (!key.has_value()) return std::nullopt;
      std::optional<V> value = TypeTraits<V>::TryCastFromAnyView(kv.second.raw());
      if (!value.has_value()) return std::nullopt;
      out.Set(*key, *value);
    }
    return out;
  }
};

}  // namespace details
}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_CONTAINER_MAP_BASE_H_
