// `polyhe selftest`: runs the self-test and prints its result.
#include <nlohmann/json.hpp>
#include <ostream>

#include "commands.hpp"
#include "random.hpp"
#include "selftest.hpp"
#include "text.hpp"

namespace polyhe::cli {

std::string selftest_summary(const SelftestResult& r) {
  return "selftest: " + std::to_string(r.passed()) + " passed, " + std::to_string(r.failed()) +
         " failed (" + fixed(r.seconds, 2) + " s)";
}

void write_selftest_text(const SelftestResult& r, std::ostream& out) {
  out << "selftest: seed " << r.seed << " (replay with: polyhe selftest --seed " << r.seed << ")\n";
  for (const SelftestGroup& g : r.groups) {
    out << (g.failures.empty() ? "ok    " : "FAIL  ") << g.name << ": ";
    if (g.failures.empty()) {
      out << g.passed << " checks";
    } else {
      out << g.failures.size() << " of " << g.passed + g.failures.size() << " checks failed";
    }
    if (!g.skipped.empty()) {
      out << "; not applicable:";
      for (const std::string& s : g.skipped) out << ' ' << s;
    }
    out << '\n';
    for (const std::string& f : g.failures) out << "        " << f << '\n';
  }
  out << selftest_summary(r) << '\n';
}

std::string selftest_json(const SelftestResult& r) {
  nlohmann::json groups = nlohmann::json::array();
  for (const SelftestGroup& g : r.groups) {
    groups.push_back({{"name", g.name},
                      {"passed", g.passed},
                      {"failed", g.failures.size()},
                      {"failures", g.failures},
                      {"not_applicable", g.skipped}});
  }
  const nlohmann::json j = {{"seed", r.seed},
                            {"passed", r.passed()},
                            {"failed", r.failed()},
                            {"seconds", r.seconds},
                            {"groups", std::move(groups)}};
  return j.dump();
}

int cmd_selftest(const SelftestOptions& opt, std::ostream& out) {
  const SelftestResult r = run_selftest(opt.seed ? *opt.seed : os_seed());
  if (opt.json) {
    out << selftest_json(r) << '\n';
  } else {
    write_selftest_text(r, out);
  }
  return r.ok() ? 0 : 1;
}

}  // namespace polyhe::cli
