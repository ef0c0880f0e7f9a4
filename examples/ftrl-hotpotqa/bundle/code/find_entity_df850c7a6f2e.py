ANSWERS = {"step 1.1 of \"Were Scott Derrickson and Ed Wood of the same nationality?\"":"yes","step 2.1 of \"Were Scott Derrickson and Ed Wood of the same nationality?\"":"fact-419580"}

def find_entity_df850c7a6f2e(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
