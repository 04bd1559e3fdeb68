export { createServer, type AppDependencies } from "./app.js";
export { ConfigError, defaultConfig, loadConfig, type Config } from "./config.js";
export { startServer, type RunningServer } from "./start-server.js";
export { openStorage, type StorageOptions } from "./store/open-storage.js";
export {
  StorageUnavailableError,
  type CreateOutcome,
  type PlantRepository,
  type Storage,
  type StoredPlant,
  type TokenInfo,
  type TokenRepository,
} from "./store/storage.js";
export { OUTCOME_HEADER } from "@plantstore/contract";
