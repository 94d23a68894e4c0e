export * from './admin.ts';
export * from './common.ts';
export * from './messages.ts';
export * from './portal.ts';
export * from './skill.ts';
export * from './job.ts';
export * from './models.ts';
