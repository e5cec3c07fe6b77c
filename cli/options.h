// A small "--key value" command-line parser that refuses what it does not know.
#pragma once

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace capsweep {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Options {
 public:
  // `valued` take a value, `flags` take none, `repeated` take a value and may be given many
  // times; anything else is a usage error.
  Options(int argc, char** argv, int first, const std::set<std::string>& valued, const std::set<std::string>& flags,
          const std::set<std::string>& repeated = {});

  bool has(const std::string& key) const { return values_.count(key) != 0; }
  std::string text(const std::string& key) const;  // required
  std::string text(const std::string& key, const std::string& fallback) const;
  long long integer(const std::string& key, long long fallback, long long lo, long long hi) const;
  double number(const std::string& key, double fallback) const;
  std::vector<std::string> all(const std::string& key) const;  // a repeated option, in order

 private:
  std::map<std::string, std::string> values_;
  std::map<std::string, std::vector<std::string>> lists_;
};

}  // namespace capsweep
