import { askHumanTool } from './askHuman.ts';
import { checkTool } from './check.ts';
import { clickTool } from './click.ts';
import { clickAtTool } from './clickAt.ts';
import { doneTool } from './done.ts';
import { extractTool } from './extract.ts';
import { failTool } from './fail.ts';
import { locateVisuallyTool } from './locateVisually.ts';
import { navigateTool } from './navigate.ts';
import { pressKeyTool } from './pressKey.ts';
import { readSkillTool } from './readSkill.ts';
import { scrollTool } from './scroll.ts';
import { selectTool } from './select.ts';
import { totpCodeTool } from './totpCode.ts';
import type { AgentTool } from './toolTypes.ts';
import { typeTool } from './type.ts';
import { uploadFileTool } from './uploadFile.ts';
import { useCredentialTool } from './useCredential.ts';
import { waitTool } from './wait.ts';

/** Every tool of the model-driven agent, by name. */
export const AGENT_TOOLS: ReadonlyMap<string, AgentTool> = new Map(
  [
    clickTool,
    typeTool,
    selectTool,
    checkTool,
    pressKeyTool,
    scrollTool,
    navigateTool,
    waitTool,
    uploadFileTool,
    useCredentialTool,
    totpCodeTool,
    askHumanTool,
    extractTool,
    doneTool,
    failTool,
    locateVisuallyTool,
    clickAtTool,
    readSkillTool,
  ].map((tool) => [tool.name, tool]),
);

export type { AgentTool, ToolEnv, ToolResult } from './toolTypes.ts';
export { ToolInputError } from './toolTypes.ts';
