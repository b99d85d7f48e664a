// See tools/webpack/node-service.cjs: one bundle and a pruned package.json per service.
module.exports = require('../../tools/webpack/node-service.cjs')(__dirname);
