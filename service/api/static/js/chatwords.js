// The quick chat's words: each id the server knows (GET /api/chat/phrases; docs/API.md,
// "Quick chat") and the catalog key that says it in the viewer's language. The server's list
// is the source of the ids: the sheet offers only the ids it lists, in its order, and an id
// it adds that this map lacks is left out rather than shown raw. (A test holds this map to
// the server's list; keys are written whole so the catalog test finds them.)

export const PHRASES = {
  hello: "chat.phrase_hello",
  good_luck: "chat.phrase_good_luck",
  nice_hand: "chat.phrase_nice_hand",
  well_played: "chat.phrase_well_played",
  hurry: "chat.phrase_hurry",
  one_more: "chat.phrase_one_more",
  thanks: "chat.phrase_thanks",
  oops: "chat.phrase_oops",
  svara: "chat.phrase_svara",
  gg: "chat.phrase_gg",
  wow: "chat.phrase_wow",
  sorry: "chat.phrase_sorry",
  bye: "chat.phrase_bye",
  unlucky: "chat.phrase_unlucky",
  close_one: "chat.phrase_close_one",
  bluff: "chat.phrase_bluff",
};

// A reaction is its emoji (the same in every language) and a name for screen readers.
export const REACTIONS = {
  laugh: ["😂", "chat.reaction_laugh"],
  cry: ["😢", "chat.reaction_cry"],
  angry: ["😠", "chat.reaction_angry"],
  fire: ["🔥", "chat.reaction_fire"],
  clap: ["👏", "chat.reaction_clap"],
  cool: ["😎", "chat.reaction_cool"],
  thinking: ["🤔", "chat.reaction_thinking"],
  heart: ["❤️", "chat.reaction_heart"],
};
