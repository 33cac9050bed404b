import { describe, expect, it } from 'vitest';
import { acceleratorProblem } from '../../../src-main/core/api/accelerator.js';

describe('acceleratorProblem', () => {
  it.each(['CommandOrControl+Shift+Space', 'Alt+R', 'Cmd+Option+J', 'Ctrl+Shift+Plus', 'F13', 'Super+F5', 'Shift+/'])(
    'accepts %s',
    (a) => {
      expect(acceleratorProblem(a)).toBeUndefined();
    },
  );

  it.each([
    ['', /key combination/],
    ['R', /needs a modifier/],
    ['Shift+', /empty part/],
    ['Hyper+R', /"Hyper" is not a modifier/],
    ['Shift+Shift+R', /repeats a modifier/],
    ['Control+Alt', /ends with a modifier/],
    ['Ctrl+Banana', /"Banana" is not a key/],
    [' Ctrl+R', /key combination/],
  ])('refuses %j', (a, why) => {
    expect(acceleratorProblem(a)).toMatch(why);
  });
});
