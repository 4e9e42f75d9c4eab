// boardgame.io's own server, in memory (its default store). It binds a free port itself and prints
// `ready PORT` once it listens: `node server.cjs`.
const { Server } = require("boardgame.io/server");
const race = require("./game.cjs");

const server = Server({ games: [race] });
server.run(0).then(({ appServer }) => console.log(`ready ${appServer.address().port}`));
