// A slide deck (.wsdeck) from anyone: read, checked slide by slide, written back.
#include "fuzz.h"
#include "session/deck.h"

WS_FUZZ_TARGET(text) {
  const ws::session::Deck d = ws::session::parse_deck(text, "fuzz.wsdeck");
  (void)ws::session::runs_programs(d);
  (void)ws::session::parse_deck(ws::session::deck_json(d), "back.wsdeck");
}
