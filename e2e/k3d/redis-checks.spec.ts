import { openToOthers } from './redis-checks';

describe('openToOthers', () => {
  it("keeps the paths whose mode gives others any access, whatever the owner's and group's bits", () => {
    expect(openToOthers(['700 /data', '2770 /data', '600 /data/a.aof', '660 /data/b.aof'])).toEqual([]);
    expect(openToOthers(['644 /data/a.aof', '755 /data', '601 /x'])).toEqual([
      '644 /data/a.aof',
      '755 /data',
      '601 /x',
    ]);
  });
});
