// The game both processes load: one seat, one move. Its rules cost nothing, so what a move costs here is
// boardgame.io's own path: the socket, the master, the reducer, the in-memory store, the update sent back.
// `client: false` makes the client wait for the server's answer instead of applying the move first.
module.exports = {
  name: "race",
  minPlayers: 1,
  maxPlayers: 1,
  setup: () => ({ steps: 0 }),
  moves: {
    step: {
      move: ({ G }) => {
        G.steps += 1;
      },
      client: false,
    },
  },
};
