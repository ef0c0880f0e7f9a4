ANSWERS = {"step 1.1 of \"Which writer was from England, Henry Roth or Robert Erskine Childers?\"":"Robert Erskine Childers DSC"}

def find_entity_70015a9257b1(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
