// cli::read_polymul_input, the JSON reader of `polyhe polymul`, over the bytes as a stream. An
// input it accepts must respect the schema's limits and be a fixed point: written back as
// {"q": Q, "a": [...], "b": [...]} and read again, it gives the same numbers.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_common.hpp"
#include "polymul_input.hpp"

namespace {

void write_array(std::ostringstream& out, const std::vector<std::uint64_t>& v) {
  out << '[';
  for (std::size_t i = 0; i < v.size(); ++i) out << (i ? "," : "") << v[i];
  out << ']';
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace polyhe;
  return fuzz::run([&] {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    const cli::PolymulInput input = cli::read_polymul_input(in);
    fuzz::require(
        input.a.size() <= cli::kMaxPolymulLength && input.b.size() <= cli::kMaxPolymulLength,
        "polymul input: an array longer than kMaxPolymulLength was accepted");

    std::ostringstream out;
    out << "{\"q\":" << input.q << ",\"a\":";
    write_array(out, input.a);
    out << ",\"b\":";
    write_array(out, input.b);
    out << '}';
    std::istringstream again_in(out.str());
    const cli::PolymulInput again = cli::read_polymul_input(again_in);
    fuzz::require(again.q == input.q && again.a == input.a && again.b == input.b,
                  "polymul input: written back and read again, the numbers differ");
  });
}
