#include "cli/options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace capsweep {

Options::Options(int argc, char** argv, int first, const std::set<std::string>& valued,
                 const std::set<std::string>& flags, const std::set<std::string>& repeated) {
  for (int i = first; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + arg + "'");
    const std::string key = arg.substr(2);
    if (flags.count(key)) {
      values_[key] = "1";
    } else if (repeated.count(key)) {
      if (i + 1 >= argc) throw UsageError("--" + key + " needs a value");
      lists_[key].push_back(argv[++i]);
    } else if (valued.count(key)) {
      if (i + 1 >= argc) throw UsageError("--" + key + " needs a value");
      values_[key] = argv[++i];
    } else {
      throw UsageError("unknown option --" + key);
    }
  }
}

std::vector<std::string> Options::all(const std::string& key) const {
  auto it = lists_.find(key);
  return it == lists_.end() ? std::vector<std::string>{} : it->second;
}

std::string Options::text(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw UsageError("--" + key + " is required");
  return it->second;
}

std::string Options::text(const std::string& key, const std::string& fallback) const {
  auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

long long Options::integer(const std::string& key, long long fallback, long long lo, long long hi) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (errno != 0 || end == it->second.c_str() || *end != '\0' || v < lo || v > hi) {
    throw UsageError("--" + key + " must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
  }
  return v;
}

double Options::number(const std::string& key, double fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end != '\0' || !std::isfinite(v)) throw UsageError("--" + key + " must be a number");
  return v;
}

}  // namespace capsweep
