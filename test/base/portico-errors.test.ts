// tier: unit
import { describe, expect, it } from 'vitest';
import { FillProblem } from '../../src-main/agent/autofill/fillBase.js';
import { ToolInputError } from '../../src-main/agent/model/tools/index.js';
import { AppError, PorticoError } from '../../src-main/base/errors.js';
import { linearRegExp, UnsupportedPatternError } from '../../src-main/base/linearRegExp.js';
import { DocumentReadError } from '../../src-main/engine/documents/types.js';

describe('the non-HTTP errors share PorticoError: named after their class, messages and instanceof kept', () => {
  it.each([
    ['FillProblem', () => new FillProblem("'x' isn't one of the options for 'Colour'", ['Red'], 'none')],
    ['DocumentReadError', () => new DocumentReadError('scan.pdf: the PDF is encrypted')],
    ['ToolInputError', () => new ToolInputError('no element [9] in the current listing')],
  ] as const)('%s', (name, make) => {
    const error = make();
    expect(error).toBeInstanceOf(PorticoError);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(AppError);
    expect(error.name).toBe(name);
    expect(String(error)).toMatch(new RegExp(`^${name}: `));
  });

  it('FillProblem keeps its choices and kind', () => {
    const problem = new FillProblem('several', ['A', 'B'], 'several');
    expect({ choices: problem.choices, kind: problem.kind, message: problem.message }).toEqual({
      choices: ['A', 'B'],
      kind: 'several',
      message: 'several',
    });
  });

  it('a pattern RE2 cannot run throws UnsupportedPatternError, a PorticoError named after its class', () => {
    let thrown: unknown;
    try {
      linearRegExp('(a)\\1');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnsupportedPatternError);
    expect(thrown).toBeInstanceOf(PorticoError);
    expect((thrown as Error).name).toBe('UnsupportedPatternError');
    expect((thrown as Error).message).toMatch(/^pattern "\(a\)\\\\1" is not supported/);
  });
});
