// The fields of a line of the CSV files capsweep reads (poses, tiles): comma-separated, each
// trimmed of blanks, and the numbers in them checked in full. Internal to io/.
#pragma once

#include <capsweep/files.h>

#include <charconv>
#include <fstream>
#include <span>
#include <cmath>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace capsweep::csv {

inline std::string trimmed(const std::string& s) {
  const std::size_t first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// The line without its comment: a `#` that starts it or follows a blank starts one (so a file
// name may hold a `#`).
inline std::string without_comment(const std::string& line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) return line.substr(0, i);
  }
  return line;
}

inline std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (std::size_t comma; (comma = line.find(',', start)) != std::string::npos; start = comma + 1) {
    fields.push_back(trimmed(line.substr(start, comma - start)));
  }
  fields.push_back(trimmed(line.substr(start)));
  return fields;
}

// A number in full (a leading '+' allowed), or why not.
inline std::string number(const std::string& field, const char* column, double& out) {
  const bool plus = !field.empty() && field[0] == '+';
  const char* begin = field.data() + plus;
  const auto [end, ec] = std::from_chars(begin, field.data() + field.size(), out);
  if (field.empty() || ec != std::errc() || end != field.data() + field.size() || (plus && field.size() > 1 && field[1] == '-')) {
    return std::string(column) + " '" + field + "' is not a number";
  }
  if (!std::isfinite(out)) return std::string(column) + " is not finite (" + field + ")";
  return "";
}

inline std::string whole_number(const std::string& field, std::uint32_t& out) {
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), out);
  if (field.empty() || ec != std::errc() || end != field.data() + field.size()) {
    return "id '" + field + "' is not a whole number from 0 to 4294967295";
  }
  return "";
}

// Calls row(fields, line) for each row of the file at `path`: blank lines and comments skipped,
// and a first row that is the header (`columns`, or their first `fewest` or more) too. Throws
// FormatError "PATH: cannot open" or "PATH: read failed".
template <class Row>
void for_each_row(const std::string& path, std::span<const char* const> columns, std::size_t fewest, Row&& row) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FormatError(path + ": cannot open");
  bool first_row = true;
  std::string text;
  for (std::uint32_t line = 1; std::getline(in, text); ++line) {
    text = trimmed(without_comment(text));
    if (text.empty()) continue;
    const std::vector<std::string> fields = fields_of(text);
    const bool header = first_row && fields.size() >= fewest && fields.size() <= columns.size() &&
                        std::equal(fields.begin(), fields.end(), columns.begin());
    first_row = false;
    if (!header) row(fields, line);
  }
  if (in.bad()) throw FormatError(path + ": read failed");
}

}  // namespace capsweep::csv
