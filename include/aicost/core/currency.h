// ISO 4217 currency codes: the one list the project checks codes against.
#pragma once

#include <string>
#include <string_view>

namespace aicost::core {

// Whether `code` (three upper-case letters) is in ISO 4217 List One: the active codes, the funds
// (CHE, USN, ...), the precious metals and special codes (XAU, XDR, XXX "no currency", XTS "for
// testing"). The list is ISO 4217 as the Debian package iso-codes 4.15.0 ships it
// (/usr/share/iso-codes/json/iso_4217.json, 2023), plus the two codes ISO added in 2024: ZWG
// (Zimbabwe Gold) and XCG (Caribbean guilder, used from 2025). Codes withdrawn since (HRK, SLL,
// ANG, ZWL) stay, as old exports carry them.
bool is_iso4217(std::string_view code);

// A currency cell as the ledger stores it: surrounding spaces dropped and ASCII letters upper-cased
// ("usd " is USD: ISO 4217 codes are upper case, and "usd" must not become a second currency).
std::string normalise_currency(std::string_view text);

}  // namespace aicost::core
