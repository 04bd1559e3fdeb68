export {
  createPlant,
  createPlantStoreClient,
  type ApiError,
  type CreatePlantResult,
  type NewPlant,
  type Plant,
} from "./create-plant.js";
export { deletePlant, getPlant, listAllPlants, type Result, type StoredPlant } from "./plants.js";
