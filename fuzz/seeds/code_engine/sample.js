"use strict";
const fs = require("fs");
const { join } = require("path");

/**
 * Reads a config file.
 */
exports.readConfig = function (file) {
  return JSON.parse(fs.readFileSync(join(".", file), "utf8"));
};

function Cache(size) {
  this.size = size;
}

// Empties the cache.
Cache.prototype.clear = function () {
  this.items = [];
};

(function () {
  function hidden() {
    return <div className="x">hi</div>;
  }
  module.exports.hidden = hidden;
})();

export default async function* stream() {
  yield 1;
}
