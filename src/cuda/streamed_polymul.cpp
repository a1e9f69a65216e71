// StreamedPolymul (backend/cuda/streamed_polymul.hpp). Host code over the public API only.
//
// Chunk j uses slot s = j % depth. Its three stages, each on its own stream:
//   upload:   wait computed[s] (chunk j − depth has read in[s]); copy a_j → in[s]; record
//   uploaded[s] compute:  wait uploaded[s]; wait downloaded[s] (chunk j − depth has left out[s]);
//             out[s] = a_j·b; record computed[s]
//   download: wait computed[s]; copy out[s] → c_j; record downloaded[s]
// An event is re-recorded only after every wait on its previous record has been enqueued (the
// waits for chunk j + depth come after the record for chunk j), so each wait sees the intended
// chunk. A run ends with the download stream idle, hence the other two as well (the download of
// the last chunk waited for its products, which waited for its upload): the next run may start
// with every slot free.
#include "polyhe/backend/cuda/streamed_polymul.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>

#include "polyhe/core/error.hpp"

namespace polyhe::cuda {

namespace {

constexpr unsigned kMinDepth = 2;
constexpr unsigned kMaxDepth = 8;

}  // namespace

template <Word W>
StreamedPolymul<W>::StreamedPolymul(std::shared_ptr<const DeviceNttTables<W>> tables,
                                    std::span<const W> b, std::size_t chunk, unsigned depth,
                                    NttOptions options)
    : tables_(std::move(tables)), chunk_(chunk), options_(options) {
  if (tables_ == nullptr) throw InvalidParameter("StreamedPolymul: null tables");
  const std::size_t words = tables_->words();
  const std::size_t n = tables_->n();
  if (b.size() != words) {
    throw InvalidParameter("StreamedPolymul: b has " + std::to_string(b.size()) +
                           " words; the tables' limbs·n is " + std::to_string(words));
  }
  for (std::size_t i = 0; i < words; ++i) {
    const W q = tables_->plan(i / n).q();
    if (b[i] >= q) {
      throw InvalidParameter(
          "StreamedPolymul: b[" + std::to_string(i) + "] = " + std::to_string(b[i]) +
          " is not below q = " + std::to_string(q) + " of limb " + std::to_string(i / n));
    }
  }
  if (chunk == 0) throw InvalidParameter("StreamedPolymul: chunk = 0; at least 1 polynomial");
  if (depth < kMinDepth || depth > kMaxDepth) {
    throw InvalidParameter("StreamedPolymul: depth = " + std::to_string(depth) + "; 2 to 8 slots");
  }
  // chunk·words, checked against overflow (DeviceBuffer checks the bytes).
  const std::size_t slot_words = detail::checked_bytes(chunk, words, "StreamedPolymul slot");

  const std::shared_ptr<const Context>& ctx = tables_->context();
  const Stream compute = ctx->compute();
  b_evaluated_ = to_device(ctx, b, compute);
  forward(*tables_, b_evaluated_.cspan(), b_evaluated_.span(), compute, options_);
  slots_.reserve(depth);
  for (unsigned s = 0; s < depth; ++s) {
    slots_.push_back(Slot{DeviceBuffer<W>(ctx, slot_words, compute),
                          DeviceBuffer<W>(ctx, slot_words, compute), Event(*ctx, false),
                          Event(*ctx, false), Event(*ctx, false)});
  }
  // The upload and download streams use the slots: order them after the allocations (and b's
  // transform, so that a bad option or a device fault surfaces here).
  synchronize(compute);
}

template <Word W>
StreamedPolymul<W>::~StreamedPolymul() {
  wait_for_streams();
}

template <Word W>
void StreamedPolymul<W>::wait_for_streams() const noexcept {
  try {
    tables_->context()->synchronize();
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor or an error path reports nothing
  }
}

template <Word W>
void StreamedPolymul<W>::enqueue(std::size_t j, std::size_t count, std::span<const W> a,
                                 std::span<W> c) {
  const Context& ctx = *tables_->context();
  const Stream upload = ctx.upload();
  const Stream compute = ctx.compute();
  const Stream download = ctx.download();
  const std::size_t words = tables_->words();
  const std::size_t first = j * chunk_;
  const std::size_t len = std::min(chunk_, count - first) * words;
  Slot& slot = slots_[j % slots_.size()];
  const bool reused = j >= slots_.size();

  if (reused) slot.computed.wait_on(upload);
  const DeviceSpan<W> in = slot.in.span().subspan(0, len);
  copy_async(in, a.subspan(first * words, len), upload);
  slot.uploaded.record(upload);

  slot.uploaded.wait_on(compute);
  if (reused) slot.downloaded.wait_on(compute);
  const DeviceSpan<W> out = slot.out.span().subspan(0, len);
  polymul_evaluated(*tables_, DeviceSpan<const W>(in), b_evaluated_.cspan(), out, compute,
                    options_);
  slot.computed.record(compute);

  slot.computed.wait_on(download);
  copy_async(c.subspan(first * words, len), DeviceSpan<const W>(out), download);
  slot.downloaded.record(download);
}

template <Word W>
void StreamedPolymul<W>::run(std::span<const W> a, std::span<W> c) {
  const std::size_t words = tables_->words();
  if (a.size() != c.size() || a.size() % words != 0) {
    throw InvalidParameter(
        "StreamedPolymul::run: a has " + std::to_string(a.size()) + " words, c " +
        std::to_string(c.size()) +
        "; both must be the same multiple of limbs·n = " + std::to_string(words));
  }
  const std::size_t count = a.size() / words;
  if (count == 0) return;
  tables_->context()->activate();
  const std::size_t chunks = (count + chunk_ - 1) / chunk_;
  try {
    for (std::size_t j = 0; j < chunks; ++j) enqueue(j, count, a, c);
    synchronize(tables_->context()->download());
  } catch (...) {
    // Leave no copy pending on a or c, and every slot free for the next run.
    wait_for_streams();
    throw;
  }
}

template class StreamedPolymul<std::uint32_t>;
template class StreamedPolymul<std::uint64_t>;

}  // namespace polyhe::cuda
